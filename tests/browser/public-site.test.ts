// The public site (issue 11): home with the agent's terminal demos → pricing → register, the legal
// pages' tables of contents, the contact page's configured details, the signed-in menu order, the
// actor label of audit logs, and a toast swiped away.
import type { Page } from 'playwright-core';
import {
  api,
  auditRow,
  expectTitle,
  newSession,
  pathname,
  registeredUser,
  signIn,
  TEXT,
  toast,
  visible,
  browserForFile,
} from './helpers';

const browser = browserForFile();

/** How many lines of a terminal demo are on screen right now. */
function shownLines(page: Page, demo: 'encryption' | 'restore'): Promise<number> {
  return page.evaluate(
    (id) =>
      Array.from(
        document.querySelectorAll(`[data-testid="terminal-${id}"] [data-testid="terminal-line"]`),
      ).filter((el) => getComputedStyle(el).visibility === 'visible').length,
    demo,
  );
}

/** Waits until the demo shows exactly `n` lines (or, with `atLeast`, `n` or more). */
async function waitForLines(page: Page, demo: string, n: number, atLeast = false) {
  await page.waitForFunction(
    ({ id, n, atLeast }) => {
      const shown = Array.from(
        document.querySelectorAll(`[data-testid="terminal-${id}"] [data-testid="terminal-line"]`),
      ).filter((el) => getComputedStyle(el).visibility === 'visible').length;
      return atLeast ? shown >= n : shown === n;
    },
    { id: demo, n, atLeast },
    { timeout: 30_000 },
  );
}

/** Waits until the element's top edge sits in the top part of the viewport, below the sticky header. */
async function scrolledTo(page: Page, id: string) {
  await page.waitForFunction(
    (id) => {
      const el = document.getElementById(id);
      if (!el) return false;
      const top = el.getBoundingClientRect().top;
      return top >= 60 && top <= 160;
    },
    id,
    { timeout: 10_000 },
  );
}

describe('home page', () => {
  it('plays both terminal demos line by line, loops, and leads to pricing and registration', async () => {
    const { page, context, errors } = await newSession(browser());
    try {
      await page.goto('/');
      await expectTitle(page, 'Coffer – Home');

      const encryption = page.getByTestId('terminal-encryption');
      const restore = page.getByTestId('terminal-restore');
      await encryption.scrollIntoViewIfNeeded();
      const total = await encryption.getByTestId('terminal-line').count();
      expect(total).toBeGreaterThan(5);
      // The agent's real output: the first command, the key warning and the backup's log line.
      await expect(encryption.textContent()).resolves.toContain('coffer-agent init --server');
      await expect(encryption.textContent()).resolves.toContain(
        'Coffer never receives this key and cannot recover it.',
      );
      await expect(encryption.textContent()).resolves.toContain('"msg":"backup completed"');
      await expect(restore.textContent()).resolves.toContain('"msg":"restore finished"');

      // Lines appear one after another until the whole transcript is shown...
      await waitForLines(page, 'encryption', 1, true);
      const early = await shownLines(page, 'encryption');
      expect(early).toBeLessThan(total);
      await waitForLines(page, 'encryption', early + 1, true);
      await waitForLines(page, 'encryption', total);
      await waitForLines(page, 'restore', await restore.getByTestId('terminal-line').count());
      // ...then the demo starts over.
      await waitForLines(page, 'encryption', 0);
      await waitForLines(page, 'encryption', 1, true);

      // Learn More jumps to the features, Pricing to the plans, Get Started to registration.
      await page.getByRole('link', { name: 'Learn More' }).click();
      await scrolledTo(page, 'features');
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Pricing' }).click();
      await page.waitForURL((url) => url.hash === '#pricing');
      await scrolledTo(page, 'pricing');
      const pricing = page.locator('#pricing');
      await visible(pricing.getByRole('link', { name: 'Get Started' }));
      expect(await pricing.getByRole('link', { name: 'Get Started' }).count()).toBe(4);
      await pricing.getByRole('link', { name: 'Get Started' }).first().click();
      await page.waitForURL('**/register');
      await expectTitle(page, 'Coffer – Register');
      await visible(page.getByRole('button', { name: 'Create account' }));
      expect(errors.filter((e) => e.startsWith('pageerror'))).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('shows the whole transcript at once to visitors who prefer reduced motion', async () => {
    const { page, context } = await newSession(browser());
    try {
      await page.emulateMedia({ reducedMotion: 'reduce' });
      await page.goto('/');
      const total = await page.getByTestId('terminal-restore').getByTestId('terminal-line').count();
      await waitForLines(page, 'restore', total);
      expect(await shownLines(page, 'restore')).toBe(total);
    } finally {
      await context.close();
    }
  });
});

describe("the terminal demos' lines", () => {
  for (const width of [1280, 375]) {
    it(`are whole inside their terminal, none cut off at its edge (${width} px)`, async () => {
      const { page, context } = await newSession(browser(), { width, height: 900 });
      try {
        await page.emulateMedia({ reducedMotion: 'reduce' }); // every line shown at once
        await page.goto('/');
        for (const id of ['encryption', 'restore']) {
          const terminal = page.getByTestId(`terminal-${id}`);
          await terminal.scrollIntoViewIfNeeded();
          const cut = await terminal.evaluate((fig) => {
            const box = fig.getBoundingClientRect();
            const pre = fig.querySelector('pre')!;
            return {
              scrolls: pre.scrollWidth > pre.clientWidth + 1,
              lines: Array.from(fig.querySelectorAll('[data-testid="terminal-line"]'))
                .filter(
                  (l) => l.getBoundingClientRect().right > box.right + 1 || l.scrollWidth > l.clientWidth + 1,
                )
                .map((l) => (l.textContent ?? '').slice(0, 40)),
            };
          });
          expect({ id, ...cut }).toEqual({ id, scrolls: false, lines: [] });
        }
      } finally {
        await context.close();
      }
    });
  }
});

describe('content pages', () => {
  it('features lists every point of the spec and ends with Start Free Trial', async () => {
    const { page, context } = await newSession(browser());
    try {
      await page.goto('/features');
      await expectTitle(page, 'Coffer – Features');
      for (const heading of [
        'AES-256 encryption at the source',
        'Zero knowledge',
        'Scheduling with adjustable retention',
        'Restore from the dashboard',
        'Detailed backup history',
        'Compliance ready',
        'A lightweight agent',
        'Scalable cloud storage',
      ])
        await visible(page.getByRole('heading', { name: heading, exact: true }));
      await page.getByRole('link', { name: 'Start Free Trial' }).click();
      await page.waitForURL('**/register');
    } finally {
      await context.close();
    }
  });

  it('contact shows the support e-mail and chat link the deployment is configured with', async () => {
    const supportEmail = process.env.COFFER_SUPPORT_EMAIL!;
    const chatUrl = process.env.COFFER_COMMUNITY_CHAT_URL!;
    expect(supportEmail).toBeTruthy();
    const config = await api('GET', '/api/config');
    expect(config.status).toBe(200);
    expect(config.body).toEqual({ supportEmail, communityChatUrl: chatUrl });

    const { page, context } = await newSession(browser());
    try {
      await page.goto('/about');
      await page.getByRole('link', { name: 'Contact us' }).click();
      await page.waitForURL('**/contact');
      await expectTitle(page, 'Coffer – Contact');
      const mail = page.getByRole('link', { name: supportEmail });
      await visible(mail);
      expect(await mail.getAttribute('href')).toBe(`mailto:${supportEmail}`);
      const chat = page.getByRole('link', { name: 'Join the community chat' });
      expect(await chat.getAttribute('href')).toBe(chatUrl);
      expect(await chat.getAttribute('target')).toBe('_blank');
    } finally {
      await context.close();
    }
  });

  it.each([
    // Sections from the middle: the last ones cannot scroll up to the top of a tall window.
    [
      '/privacy',
      'Privacy Policy',
      'September 19, 2025',
      'Where your information is stored',
      'where-data-is-stored',
    ],
    [
      '/terms',
      'Terms of Service',
      'April 30, 2025',
      'Subscriptions, renewal and cancellation',
      'subscriptions',
    ],
  ])(
    '%s has its date and a table of contents whose anchors move to the section',
    async (path, title, date, entry, id) => {
      const { page, context } = await newSession(browser());
      try {
        await page.goto(path);
        await expectTitle(page, `Coffer – ${title}`);
        await visible(page.getByText(`Last updated ${date}`));
        const toc = page.getByRole('navigation', { name: 'Table of contents' });
        // Every entry points at a section of the page.
        const targets = await toc
          .getByRole('link')
          .evaluateAll((links) => links.map((a) => new URL((a as HTMLAnchorElement).href).hash.slice(1)));
        expect(targets.length).toBeGreaterThan(8);
        for (const t of targets) expect(await page.locator(`section#${t}`).count()).toBe(1);

        await toc.getByRole('link', { name: entry }).click();
        await page.waitForURL((url) => url.pathname === path && url.hash === `#${id}`);
        await scrolledTo(page, id);

        // Opened with the anchor in the address, the page lands on the section too.
        await page.goto('/');
        await page.goto(`${path}#${id}`);
        await scrolledTo(page, id);
      } finally {
        await context.close();
      }
    },
  );

  it('states the facts of the terms and the privacy notice', async () => {
    const { page, context } = await newSession(browser());
    try {
      await page.goto('/terms');
      for (const fact of [
        'at least 13 years old',
        'PayPal, Mastercard and Visa',
        'US dollars',
        'renew automatically',
        'non-refundable',
        'end of the current paid term',
        'the 6 months before',
        'laws of the Netherlands',
        'Utrecht',
        'AES-256',
      ])
        await visible(page.getByText(fact).first());
      await page.goto('/privacy');
      for (const fact of [
        'under 18 years of age',
        'located in the United States',
        'card payment provider',
        'preceding 12 months',
        'Do-Not-Track',
        'coffer-vault',
      ])
        await visible(page.getByText(fact).first());
    } finally {
      await context.close();
    }
  });

  it('fits a 375 px phone screen', async () => {
    const { page, context } = await newSession(browser(), { width: 375, height: 812 });
    try {
      for (const path of ['/', '/features', '/about', '/contact', '/privacy', '/terms']) {
        await page.goto(path);
        await page.getByRole('heading', { level: 1 }).first().waitFor();
        const { scrollWidth, innerWidth } = await page.evaluate(() => ({
          scrollWidth: document.documentElement.scrollWidth,
          innerWidth: window.innerWidth,
        }));
        expect({ path, scrollWidth }).toEqual({ path, scrollWidth: innerWidth });
      }
    } finally {
      await context.close();
    }
  });
});

describe('signed-in shell', () => {
  it('puts Help before Admin in the menu, and a toast swiped 50 px goes away', async () => {
    const { page, context } = await newSession(browser());
    try {
      // Fake timers that keep real time until paused below (installed before the app loads).
      await page.clock.install();
      // A session of its own: signing out ends it on the server, and the shared one (signInAsAdmin)
      // serves every other test.
      await signIn(page, {
        email: process.env.COFFER_ADMIN_EMAIL!,
        password: process.env.COFFER_ADMIN_PASSWORD!,
      });
      const nav = page.getByRole('navigation', { name: 'Main' });
      await visible(nav.getByRole('link', { name: 'Admin' }));
      expect(await nav.locator('a, button').allInnerTexts()).toEqual([
        'Dashboard',
        'Settings',
        'Profile',
        'Audit Logs',
        'Help',
        'Admin',
      ]);

      // The toast's 5 s timer runs on the page's clock, held still from here: only the swipe can
      // make the toast go away, however slowly this machine answers. Page time moves on only in
      // single frames while this test waits for the page (`frames`): under 3 s of the 5 s in all.
      await page.clock.pauseAt(Date.now() + 1000);
      /** Waits, a frame of page time at a step, until `check` holds; at most `limitMs` of page time. */
      const frames = async (what: string, limitMs: number, check: () => Promise<boolean>) => {
        for (let ms = 0; !(await check()); ms += 16) {
          if (ms >= limitMs) throw new Error(`${what}: not within ${limitMs} ms of page time`);
          await page.clock.runFor(16);
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      };
      await page.getByRole('button', { name: 'Log out' }).click();
      const signedOut = toast(page, TEXT.signedOut);
      await signedOut.waitFor({ state: 'attached' });
      const attribute = (name: string) => signedOut.getAttribute(name);
      await frames('the toast slides in', 1500, async () => (await attribute('data-mounted')) !== null);
      // hover() also waits until the toast has finished sliding in (a CSS transition: real time).
      await signedOut.hover();
      const box = (await signedOut.boundingBox())!;
      const x = box.x + box.width / 2;
      const y = box.y + box.height / 2;
      /** Waits until the toast is shifted sideways by `px`. */
      const shifted = (px: number) =>
        frames(`the toast shifted by ${px} px`, 500, () =>
          signedOut.evaluate((el, px) => new DOMMatrix(getComputedStyle(el).transform).m41 === px, px),
        );

      // The toast follows the pointer; released short of 50 px it springs back and stays open.
      await page.mouse.move(x, y);
      await page.mouse.down();
      await page.mouse.move(x + 30, y, { steps: 6 });
      await shifted(30);
      await page.mouse.up();
      await shifted(0);
      expect(await attribute('data-state')).toBe('open');

      // Past 50 px it is dismissed at once (its timer has run under 3 s), then leaves as time resumes.
      await page.mouse.move(x, y);
      await page.mouse.down();
      await page.mouse.move(x + 60, y, { steps: 6 });
      await page.mouse.up();
      await frames('the toast is dismissed', 500, async () => (await attribute('data-state')) === 'closed');
      await page.clock.resume();
      await signedOut.waitFor({ state: 'hidden', timeout: 10_000 });
    } finally {
      await context.close();
    }
  });

  it('shows who acted on each audit log entry', async () => {
    const user = await registeredUser('actor');
    const res = await api('POST', '/api/settings/regenerate-api-key', { token: user.token });
    expect(res.status).toBe(200);
    const { page, context } = await newSession(browser());
    try {
      await signIn(page, user);
      const row = await auditRow(page, 'API_KEY_REGENERATED');
      expect(await row.getByTestId('audit-actor').textContent()).toBe('by User');
      expect(pathname(page)).toBe('/audit-logs');
    } finally {
      await context.close();
    }
  });
});
