import { useEffect, useRef, useState } from 'react';
import {
  Alert,
  Box,
  Button,
  Card,
  Heading,
  HStack,
  List,
  SimpleGrid,
  Skeleton,
  Stack,
  Text,
} from '@chakra-ui/react';
import {
  useGetBillingQuery,
  useGetPlansQuery,
  useGetUserPlanQuery,
  useUpdatePlanMutation,
  type Plan,
  type BillingState,
  type Profile,
} from '../../api/generated';
import { apiErrorMessage } from '../../lib/errors';
import { formatBytes, formatDate } from '../../lib/format';
import { formatDbLimit, formatRetention, frequencyLabel, storagePercent } from '../../lib/plan';
import { PlanCard, PlanPrice } from '../plans/PlanCard';
import { useConfirm } from '../shell/ConfirmDialog';
import { FormAlert } from '../shell/FormAlert';
import { downgradeQuestion } from './downgrade';
import { StorageBar } from './StorageBar';

type Result = {
  status: 'success' | 'error' | 'info';
  message: string;
  changes?: string[];
  /** The plan whose button was clicked: the answer shows under that button, where the user looks. */
  planId?: string;
} | null;

/** The paid subscription's state: when it renews, or when the plan changes and to what (product §9). */
function subscriptionNote(billing: BillingState | undefined, plans: Plan[]): string | null {
  const sub = billing?.subscription;
  if (!sub) return null;
  const pending = plans.find((p) => p._id === sub.pendingPlanId);
  const end = sub.currentPeriodEnd ? formatDate(sub.currentPeriodEnd) : null;
  if (sub.status === 'past_due') {
    return 'Your last payment failed. The payment provider will retry it; if it keeps failing, your account moves to the Free plan.';
  }
  if ((sub.cancelAtPeriodEnd || pending) && end) {
    return `Your plan changes to ${pending?.name ?? 'Free'} on ${end}, when the paid period ends.`;
  }
  return end ? `Your subscription renews automatically on ${end}.` : null;
}

/** Back from the payment page: the plan changes when the provider confirms the payment. */
function checkoutReturn(): Result {
  const checkout = new URLSearchParams(window.location.search).get('checkout');
  if (checkout === 'success') {
    return {
      status: 'info',
      message: 'Payment received. Your new plan starts as soon as the payment provider confirms it.',
    };
  }
  if (checkout === 'cancelled')
    return { status: 'info', message: 'Checkout cancelled: your plan did not change.' };
  return null;
}

function CurrentPlanCard({ plan, storageUsed }: { plan: Plan | undefined; storageUsed: number }) {
  const limit = plan?.storageLimit ?? 0;
  const percent = storagePercent(storageUsed, limit);
  return (
    <Card.Root>
      <Card.Header>
        <Card.Title>Current Plan</Card.Title>
      </Card.Header>
      <Card.Body gap="5">
        {plan ? (
          <HStack justify="space-between" align="baseline" wrap="wrap" gap="2">
            <Heading as="h3" size="xl" data-testid="current-plan-name">
              {plan.name}
            </Heading>
            {/* a free plan's name already says it; repeating 'Free' as a price reads as a glitch */}
            {plan.price > 0 && <PlanPrice price={plan.price} />}
          </HStack>
        ) : (
          <Skeleton h="8" w="40" />
        )}
        <Stack gap="2">
          <HStack justify="space-between" fontSize="sm">
            <Text fontWeight="medium">Storage Used</Text>
            <Text color="fg.muted" data-testid="storage-used">
              {formatBytes(storageUsed)} / {plan ? formatBytes(limit) : '…'}
            </Text>
          </HStack>
          <StorageBar percent={percent} />
        </Stack>
        {plan && (
          <SimpleGrid columns={{ base: 1, sm: 3 }} gap="4" fontSize="sm">
            <Stack gap="0">
              <Text color="fg.muted">Databases</Text>
              <Text fontWeight="medium">{formatDbLimit(plan.dbLimit)}</Text>
            </Stack>
            <Stack gap="0">
              <Text color="fg.muted">Retention</Text>
              <Text fontWeight="medium">{formatRetention(plan.retentionLimit)}</Text>
            </Stack>
            <Stack gap="0">
              <Text color="fg.muted">Backup frequency</Text>
              <Text fontWeight="medium">{frequencyLabel(plan.frequencyLimit)}</Text>
            </Stack>
          </SimpleGrid>
        )}
      </Card.Body>
    </Card.Root>
  );
}

export function BillingTab({ profile }: { profile: Profile }) {
  const plansQuery = useGetPlansQuery();
  const userPlanQuery = useGetUserPlanQuery();
  const billingQuery = useGetBillingQuery();
  const [updatePlan, { isLoading: updating, originalArgs: pending }] = useUpdatePlanMutation();
  const [result, setResult] = useState<Result>(checkoutReturn);
  if (plansQuery.error) console.error('Failed to fetch plans', plansQuery.error);
  if (userPlanQuery.error) console.error('Failed to fetch plan', userPlanQuery.error);

  const plans = plansQuery.data ?? [];
  // The current plan is the one whose _id matches the profile's plan (product §4).
  const currentPlan = plans.find((p) => p._id === profile.plan) ?? userPlanQuery.data;
  const currentPrice = currentPlan?.price ?? 0;

  const note = subscriptionNote(billingQuery.data, plans);
  const sub = billingQuery.data?.subscription;
  const scheduledChange = Boolean(sub && (sub.cancelAtPeriodEnd || sub.pendingPlanId));

  const [confirm, confirmDialog] = useConfirm();

  const choose = async (plan: Plan) => {
    setResult(null);
    const downgrade = currentPlan && plan._id !== currentPlan._id && plan.price < currentPlan.price;
    if (
      downgrade &&
      !(await confirm(downgradeQuestion(currentPlan, plan, sub), {
        title: `Downgrade to ${plan.name}`,
        confirmLabel: 'Downgrade',
        destructive: true,
      }))
    )
      return;
    try {
      const res = await updatePlan({ plan: plan._id }).unwrap();
      // A paid plan is bought on the provider's page; the plan changes when its webhook confirms.
      if (res.checkoutUrl) {
        window.location.assign(res.checkoutUrl);
        return;
      }
      const resumed = plan._id === currentPlan?._id;
      setResult({
        status: 'success',
        message: resumed ? `Your ${plan.name} subscription continues and renews automatically.` : res.message,
        changes: res.changes,
        planId: plan._id,
      });
    } catch (err) {
      // No payment provider here: not a failure, an explanation (and who can change the plan).
      const code = (err as { data?: { code?: unknown } } | undefined)?.data?.code;
      setResult({
        status: code === 'BILLING_NOT_CONFIGURED' ? 'info' : 'error',
        message: apiErrorMessage(err, 'Failed to update plan', 'An error occurred updating plan'),
        planId: plan._id,
      });
    }
  };

  const resultRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    // The plan cards sit below the fold at 1280×800: the answer must not appear out of sight.
    if (result) resultRef.current?.scrollIntoView({ block: 'nearest' });
  }, [result]);
  const resultView = result && (
    <Box ref={resultRef}>
      {result.changes?.length ? (
        <Alert.Root status={result.status} role="status" data-testid="plan-change-result">
          <Alert.Indicator />
          <Stack gap="2">
            <Alert.Title>{result.message}</Alert.Title>
            <Alert.Description>
              <Text mb="1">What changes:</Text>
              <List.Root ps="4" gap="1" data-testid="plan-changes">
                {result.changes.map((c) => (
                  <List.Item key={c}>{c}</List.Item>
                ))}
              </List.Root>
            </Alert.Description>
          </Stack>
        </Alert.Root>
      ) : (
        <FormAlert status={result.status}>{result.message}</FormAlert>
      )}
    </Box>
  );

  return (
    <Stack gap="8">
      {!result?.planId && resultView}
      {note && (
        <Text color="fg.muted" data-testid="subscription-note">
          {note}
        </Text>
      )}
      <CurrentPlanCard plan={currentPlan} storageUsed={profile.storageUsed ?? 0} />
      <Stack gap="4">
        <Heading as="h2" size="lg">
          Available Plans
        </Heading>
        {plansQuery.isLoading ? (
          <SimpleGrid columns={{ base: 1, md: 3 }} gap="6">
            {[0, 1, 2].map((i) => (
              <Skeleton key={i} h="72" rounded="lg" />
            ))}
          </SimpleGrid>
        ) : (
          <SimpleGrid columns={{ base: 1, md: 3 }} gap="6">
            {plans.map((plan) => {
              const isCurrent = plan._id === currentPlan?._id;
              // A scheduled change can be undone until the paid period ends.
              const resumable = isCurrent && scheduledChange;
              const label = resumable
                ? `Keep ${plan.name}`
                : isCurrent
                  ? 'Current Plan'
                  : currentPrice > plan.price
                    ? 'Downgrade'
                    : 'Upgrade';
              return (
                <PlanCard
                  key={plan._id}
                  plan={plan}
                  isCurrent={isCurrent}
                  action={
                    <Stack gap="3">
                      <Button
                        w="full"
                        colorPalette="brand"
                        variant={isCurrent ? 'subtle' : label === 'Upgrade' ? 'solid' : 'outline'}
                        disabled={(isCurrent && !resumable) || updating}
                        loading={updating && pending?.plan === plan._id}
                        onClick={() => void choose(plan)}
                      >
                        {label}
                      </Button>
                      {result?.planId === plan._id && resultView}
                    </Stack>
                  }
                />
              );
            })}
          </SimpleGrid>
        )}
      </Stack>
      {confirmDialog}
    </Stack>
  );
}
