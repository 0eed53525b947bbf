import Stripe from 'stripe';
import { badInput, unavailable, type Logger } from '@coffer/common';
import type { BillingProvider } from './billing.js';

/**
 * The Stripe side of billing: hosted Checkout for subscriptions (card details stay with Stripe),
 * subscription changes, and webhook signature verification over the raw body.
 * `api` points the client elsewhere (stripe-mock in tests); by default it talks to api.stripe.com.
 */
export function stripeProvider(opts: {
  secretKey: string;
  webhookSecret: string;
  api?: { host: string; port: number; protocol: 'http' | 'https' };
  log?: Pick<Logger, 'error'>;
}): BillingProvider {
  const stripe = new Stripe(opts.secretKey, { maxNetworkRetries: 2, timeout: 20_000, ...(opts.api ?? {}) });

  /**
   * A failed call to Stripe is a 503 for the user. Only its kind is logged: Stripe's messages can
   * quote the request's Authorization header (the secret key).
   */
  async function guard<T>(call: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      const e = err as { type?: string; code?: string; statusCode?: number; requestId?: string };
      opts.log?.error(
        { call, type: e.type, code: e.code, statusCode: e.statusCode, stripeRequestId: e.requestId },
        'stripe call failed',
      );
      throw unavailable('The payment provider could not be reached. Try again in a moment.');
    }
  }

  return {
    checkout: (o) => guard('checkout.sessions.create', () => checkout(o)),
    cancelAtPeriodEnd: (id) => guard('subscriptions.update', () => cancelAtPeriodEnd(id)),
    cancelNow: (id) => guard('subscriptions.cancel', () => cancelNow(id)),
    changePrice: (id, price, now) => guard('subscriptions.update', () => changePrice(id, price, now)),
    verify,
  };

  async function checkout(o: Parameters<BillingProvider['checkout']>[0]) {
    const session = await stripe.checkout.sessions.create({
      mode: 'subscription',
      line_items: [{ price: o.priceId, quantity: 1 }],
      client_reference_id: o.userId,
      ...(o.customerId ? { customer: o.customerId } : { customer_email: o.email }),
      metadata: { userId: o.userId, planId: o.planId },
      // Copied onto the subscription and its invoices, so invoice.paid finds the user too.
      subscription_data: { metadata: { userId: o.userId, planId: o.planId } },
      success_url: o.successUrl,
      cancel_url: o.cancelUrl,
    });
    if (!session.url) throw new Error('Stripe returned a Checkout session without a URL');
    return { url: session.url };
  }

  async function cancelAtPeriodEnd(subscriptionId: string) {
    await stripe.subscriptions.update(subscriptionId, { cancel_at_period_end: true });
  }

  async function cancelNow(subscriptionId: string) {
    let sub: Stripe.Subscription;
    try {
      sub = await stripe.subscriptions.retrieve(subscriptionId);
    } catch (err) {
      // Gone at Stripe already: nothing left to cancel, so the sweep must not retry it forever.
      if ((err as { code?: string }).code === 'resource_missing') return;
      throw err;
    }
    if (sub.status === 'canceled' || sub.status === 'incomplete_expired') return;
    await stripe.subscriptions.cancel(subscriptionId);
  }

  async function changePrice(subscriptionId: string, priceId: string, chargeNow: boolean) {
    const sub = await stripe.subscriptions.retrieve(subscriptionId);
    const item = sub.items.data[0];
    if (!item) throw new Error('Stripe subscription has no item');
    await stripe.subscriptions.update(subscriptionId, {
      items: [{ id: item.id, price: priceId }],
      proration_behavior: chargeNow ? 'always_invoice' : 'none',
      cancel_at_period_end: false,
    });
  }

  function verify(payload: Buffer, signature: string) {
    let event: Stripe.Event;
    try {
      event = stripe.webhooks.constructEvent(payload, signature, opts.webhookSecret);
    } catch {
      throw badInput('Webhook signature verification failed');
    }
    return {
      id: event.id,
      type: event.type,
      object: event.data.object as unknown as Record<string, unknown>,
    };
  }
}
