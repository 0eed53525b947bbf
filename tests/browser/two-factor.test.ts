// Two-factor sign-in in the web app (issue 19), at desktop and phone widths: setting it up in
// Profile → Security (QR code, the key as text, a first code, the recovery codes shown once), the
// sign-in's second step with a recovery code, and the step-up dialog a destructive action opens.
import fs from 'node:fs';
import { Secret, TOTP } from 'otpauth';
import type { Browser, Page } from 'playwright-core';
import { launch, newSession, registeredUser, signIn, visible, type RegisteredUser } from './helpers';

const SHOTS = '/tmp/coffer-two-factor';

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
  fs.mkdirSync(SHOTS, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
});

/** Nothing reaches past the right edge of the viewport. */
async function expectFits(page: Page, name: string) {
  await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
  }));
  expect({ name, scrollWidth }).toEqual({ name, scrollWidth: innerWidth });
}

/** Sets two-factor sign-in up through Profile → Security; answers the recovery codes it showed. */
async function enrol(page: Page, width: number): Promise<string[]> {
  await page.goto('/profile?tab=security');
  const card = page.getByTestId('two-factor-card');
  await visible(card.getByText('Off', { exact: true }));
  await card.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
  const qr = card.getByRole('img', { name: 'QR code for your authenticator app' });
  await visible(qr);
  expect(await qr.getAttribute('src')).toMatch(/^data:image\/svg\+xml;base64,/);
  const secret = (await card.getByTestId('two-factor-secret').innerText()).replace(/\s/g, '');
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  await expectFits(page, `setup-${width}`);

  await card.getByLabel('Two-factor code').fill('000000');
  await card.getByRole('button', { name: 'Turn on' }).click();
  await visible(card.getByText(/not valid/));

  const totp = new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 });
  await card.getByLabel('Two-factor code').fill(totp.generate());
  await card.getByRole('button', { name: 'Turn on' }).click();
  const list = page.getByTestId('recovery-codes');
  await visible(list);
  const codes = (await list.getByRole('listitem').allInnerTexts()).map((c) => c.trim());
  expect(codes).toHaveLength(10);
  await expectFits(page, `recovery-codes-${width}`);
  await list.getByRole('button', { name: 'I have saved my recovery codes' }).click();
  await visible(card.getByText('On', { exact: true }));
  await visible(card.getByText('Recovery codes left:'));
  return codes;
}

describe.each([1280, 375])('two-factor sign-in at %i px', (width) => {
  let user: RegisteredUser;
  beforeAll(async () => {
    user = await registeredUser(`web-2fa-${width}`);
  });

  it('sets it up in Profile → Security and then signs in with a second step', async () => {
    const first = await newSession(browser, { width, height: 900 });
    let codes: string[];
    try {
      await signIn(first.page, user);
      codes = await enrol(first.page, width);
    } finally {
      await first.context.close();
    }

    const { page, context, errors } = await newSession(browser, { width, height: 900 });
    try {
      await page.goto('/login');
      await page.getByLabel('Email', { exact: true }).fill(user.email);
      await page.getByLabel('Password', { exact: true }).fill(user.password);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      // The password alone gives no session: the second step asks for the code.
      await visible(page.getByRole('heading', { name: 'Two-factor sign-in' }));
      await visible(page.getByLabel('Two-factor code'));
      expect(await page.evaluate(() => localStorage.getItem('coffer-vault'))).toBeNull();
      await expectFits(page, `second-step-${width}`);

      await page.getByLabel('Two-factor code').fill('000000');
      await page.getByRole('button', { name: 'Verify' }).click();
      await visible(page.getByText(/not valid/));

      await page.getByRole('button', { name: 'Use a recovery code' }).click();
      await page.getByLabel('Recovery code').fill(codes[0]!);
      await page.getByRole('button', { name: 'Verify' }).click();
      await page.waitForURL('**/dashboard');

      // A recovery code works once: the same code at the next sign-in is refused.
      await page.evaluate(() => localStorage.clear());
      await page.goto('/login');
      await page.getByLabel('Email', { exact: true }).fill(user.email);
      await page.getByLabel('Password', { exact: true }).fill(user.password);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.getByRole('button', { name: 'Use a recovery code' }).click();
      await page.getByLabel('Recovery code').fill(codes[0]!);
      await page.getByRole('button', { name: 'Verify' }).click();
      await visible(page.getByText(/not valid/));
      await page.getByLabel('Recovery code').fill(codes[1]!);
      await page.getByRole('button', { name: 'Verify' }).click();
      await page.waitForURL('**/dashboard');

      // A destructive action asks for the code again in a dialog, then goes through.
      await page.goto('/settings?tab=security');
      await page.getByRole('button', { name: 'Regenerate API Key' }).click();
      await page.getByTestId('confirm-dialog').getByRole('button', { name: 'Regenerate' }).click();
      const dialog = page.getByTestId('step-up-dialog');
      await visible(dialog);
      await expectFits(page, `step-up-${width}`);
      await dialog.getByLabel('Two-factor code').fill(codes[2]!);
      await dialog.getByRole('button', { name: 'Confirm' }).click();
      await visible(page.getByText('API key has been regenerated.', { exact: false }));
      await dialog.waitFor({ state: 'hidden' });
      expect(errors.filter((e) => !e.includes('status of 4'))).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
