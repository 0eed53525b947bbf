import { formatLockDate } from '@coffer/common';
import { clipErrorText, formatBytes } from '@coffer/contracts';
import { formatTime } from './format.js';

/**
 * Every mail Coffer sends, as plain functions from data to subject + text + HTML. A new kind of
 * mail is one more function here built with render(); nothing else needs to know its wording.
 * All interpolated values are escaped in the HTML part.
 */
export interface Mail {
  subject: string;
  text: string;
  html: string;
}

interface Layout {
  subject: string;
  name?: string;
  paragraphs: string[];
  /** Label/value lines after the paragraphs (database, size, error...); values may span lines. */
  facts?: Array<[label: string, value: string]>;
  action?: { label: string; url: string };
  /** Paragraphs after the button (expiry notes, "ignore this if..."). */
  after?: string[];
  /** Small print, e.g. how to turn this notification off. */
  footer?: { text: string; link?: { label: string; url: string } };
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function render(l: Layout): Mail {
  const greeting = l.name?.trim() ? `Hi ${l.name.trim()},` : 'Hi,';
  const text = [
    greeting,
    ...l.paragraphs,
    ...(l.facts?.length ? [l.facts.map(([k, v]) => `${k}: ${v}`).join('\n')] : []),
    ...(l.action ? [`${l.action.label}: ${l.action.url}`] : []),
    ...(l.after ?? []),
    '— The Coffer team',
    ...(l.footer
      ? [`${l.footer.text}${l.footer.link ? ` ${l.footer.link.label}: ${l.footer.link.url}` : ''}`]
      : []),
  ].join('\n\n');

  const p = (s: string) => `<p style="margin:0 0 16px">${escapeHtml(s)}</p>`;
  const facts = l.facts?.length
    ? `<table role="presentation" style="border-collapse:collapse;margin:0 0 16px">` +
      l.facts
        .map(
          ([k, v]) =>
            `<tr><td style="padding:2px 16px 2px 0;color:#4a5568;vertical-align:top;white-space:nowrap">` +
            `${escapeHtml(k)}</td><td style="padding:2px 0;white-space:pre-wrap;word-break:break-word">` +
            `${escapeHtml(v)}</td></tr>`,
        )
        .join('') +
      '</table>'
    : '';
  const button = l.action
    ? `<p style="margin:24px 0"><a href="${escapeHtml(l.action.url)}" style="background:#2b6cb0;color:#fff;` +
      `padding:10px 18px;border-radius:6px;text-decoration:none;display:inline-block">${escapeHtml(l.action.label)}</a></p>` +
      `<p style="margin:0 0 16px;font-size:13px;color:#4a5568">If the button does not work, open this address: ` +
      `<a href="${escapeHtml(l.action.url)}">${escapeHtml(l.action.url)}</a></p>`
    : '';
  const footer = l.footer
    ? `<p style="margin:24px 0 0;font-size:12px;color:#718096">${escapeHtml(l.footer.text)}` +
      (l.footer.link
        ? ` <a href="${escapeHtml(l.footer.link.url)}">${escapeHtml(l.footer.link.label)}</a>`
        : '') +
      '</p>'
    : '';
  const html =
    `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(l.subject)}</title></head>` +
    `<body style="font-family:Arial,Helvetica,sans-serif;color:#1a202c;line-height:1.5">` +
    `<div style="max-width:560px;margin:0 auto;padding:24px">` +
    `<h1 style="font-size:20px;margin:0 0 24px">Coffer</h1>` +
    p(greeting) +
    l.paragraphs.map(p).join('') +
    facts +
    button +
    (l.after ?? []).map(p).join('') +
    p('— The Coffer team') +
    footer +
    `</div></body></html>`;
  return { subject: l.subject, text, html };
}

/** Links into the web app, built from PUBLIC_URL. */
export function appLinks(publicUrl: string) {
  const base = publicUrl.replace(/\/+$/, '');
  return {
    dashboard: `${base}/dashboard`,
    notificationSettings: `${base}/settings?tab=notifications`,
    retentionLockSettings: `${base}/settings?tab=general#retention-lock`,
    billing: `${base}/profile?tab=billing`,
    /** The page that confirms a new notification address; the token is a secret (mail only). */
    confirmNotificationEmail: (token: string) => `${base}/confirm-notification-email/${token}`,
  };
}
export type AppLinks = ReturnType<typeof appLinks>;

/** Agent error texts can be long (tool output): a mail shows their start, as the dashboard does. */
const clip = (s: string) => clipErrorText(s);

/** 'db-box (host-1)', or just the one that is set when they are equal or one is empty. */
export function agentLabel(a: { name: string; hostname: string }): string {
  const name = a.name.trim();
  const host = a.hostname.trim();
  if (!name) return host || 'your agent';
  return host && host !== name ? `${name} (${host})` : name;
}

const backupType = (t: 'manual' | 'auto') => (t === 'auto' ? 'Automatic' : 'Manual');

const manageNotifications = (links: AppLinks) => ({
  text: 'You receive this because notifications are on for your Coffer account.',
  link: { label: 'Manage notifications', url: links.notificationSettings },
});

export const templates = {
  /** Sent when auth asks (SendPasswordReset); the link is `{PUBLIC_URL}/reset-password/{token}`. */
  passwordReset(d: { name: string; resetUrl: string }): Mail {
    return render({
      subject: 'Reset your Coffer password',
      name: d.name,
      paragraphs: ['We received a request to reset the password of your Coffer account.'],
      action: { label: 'Reset password', url: d.resetUrl },
      after: [
        'This link expires in one hour and can be used only once.',
        'If you did not ask to reset your password, ignore this email: your password stays as it is.',
      ],
    });
  },

  /** Sent to the previous account address when the account's e-mail changes (SendAccountEmailChanged). */
  accountEmailChanged(d: { name: string; newEmail: string }): Mail {
    return render({
      subject: 'Your Coffer account email was changed',
      name: d.name,
      paragraphs: [
        `The email address of your Coffer account was changed to ${d.newEmail}. Sign-in and account mails go there from now on.`,
      ],
      after: [
        'If you did not make this change, someone else may have access to your account: reset your password and contact support at once.',
      ],
    });
  },

  /** Sent to a new notification address; nothing goes there until its owner opens the link. */
  notificationEmailConfirmation(d: {
    name: string;
    email: string;
    confirmUrl: string;
    validHours: number;
  }): Mail {
    return render({
      subject: 'Confirm your Coffer notification email',
      name: d.name,
      paragraphs: [
        `Someone asked Coffer to send backup and agent notifications to ${d.email}.`,
        'Confirm this address to start receiving them here. Until then they keep going to the previous address.',
      ],
      action: { label: 'Confirm notification email', url: d.confirmUrl },
      after: [
        `This link expires in ${d.validHours} hours and can be used only once.`,
        'If you did not ask for this, ignore this email: nothing will be sent to this address.',
      ],
    });
  },

  /**
   * Sent on settings.retention_lock.updated (disable_requested) to the account address: the delay
   * exists so that a turn-off the owner did not ask for (a stolen login) can be cancelled in time.
   */
  retentionLockTurnOff(d: { name: string; effectiveAt: Date }, links: AppLinks): Mail {
    return render({
      subject: 'Your Coffer retention lock will turn off',
      name: d.name,
      paragraphs: [
        `Someone signed in to your Coffer account asked to turn off the retention lock. It stays on until ${formatLockDate(d.effectiveAt)}; after that, new backups can be deleted before their retention date.`,
        'Backups made while the lock was on stay locked until their own date either way.',
      ],
      action: { label: 'Keep the lock on', url: links.retentionLockSettings },
      after: [
        'If you did not ask for this, keep the lock on from Settings → General, then change your password: someone else may have access to your account.',
      ],
    });
  },

  /** Sent on auth.billing.plan_lapsed: the provider gave up charging the renewal. */
  planLapsed(d: { name: string; previousPlanName: string; planName: string }, links: AppLinks): Mail {
    return render({
      subject: `Your Coffer ${d.previousPlanName} plan has ended`,
      name: d.name,
      paragraphs: [
        `We could not charge the renewal of your ${d.previousPlanName} subscription, so your account is now on the ${d.planName} plan.`,
        `Databases beyond the ${d.planName} plan's limit are inactive and your backup schedule follows its limits. Your existing backups are kept until the retention rule removes them.`,
      ],
      action: { label: 'Choose a plan', url: links.billing },
      after: ['Upgrade again from Profile → Billing & Plan whenever you like.'],
    });
  },

  /** Sent from Settings → Notifications → Send Test Notification. */
  testNotification(d: { name: string }, links: AppLinks): Mail {
    return render({
      subject: 'Coffer test notification',
      name: d.name,
      paragraphs: [
        'This is a test notification from Coffer.',
        'Your notification settings work: backup and agent alerts you have turned on will be sent to this address.',
      ],
      action: { label: 'Open notification settings', url: links.notificationSettings },
      footer: manageNotifications(links),
    });
  },

  /** Sent on backup.backup.completed when the user keeps "backup success" on. */
  backupCompleted(
    d: { name: string; databaseName: string; size: number; type: 'manual' | 'auto'; at: Date },
    links: AppLinks,
  ): Mail {
    return render({
      subject: 'Backup completed',
      name: d.name,
      paragraphs: [`The backup of your database "${d.databaseName}" completed and is stored encrypted.`],
      facts: [
        ['Database', d.databaseName],
        ['Size', formatBytes(d.size)],
        ['Type', backupType(d.type)],
        ['Completed', formatTime(d.at)],
      ],
      action: { label: 'Open dashboard', url: links.dashboard },
      footer: manageNotifications(links),
    });
  },

  /** Sent on backup.backup.failed when the user keeps "backup failure" on. */
  backupFailed(
    d: { name: string; databaseName: string; error: string; type: 'manual' | 'auto'; at: Date },
    links: AppLinks,
  ): Mail {
    return render({
      subject: 'Backup failed',
      name: d.name,
      paragraphs: [`The backup of your database "${d.databaseName}" failed.`],
      facts: [
        ['Database', d.databaseName],
        ['Type', backupType(d.type)],
        ['Failed', formatTime(d.at)],
        ['Error', clip(d.error.trim()) || 'no details were reported'],
      ],
      after: [
        'Please check the Coffer agent that backs up this database: it must be running, connected to ' +
          'Coffer, and able to reach the database with its configured credentials.',
      ],
      action: { label: 'Open dashboard', url: links.dashboard },
      footer: manageNotifications(links),
    });
  },

  /**
   * Sent on backup.verification.failed when the user keeps "backup failure" on: a backup that
   * would not restore as it was made is a failed backup to its owner. Nothing was deleted.
   */
  backupVerificationFailed(
    d: { name: string; databaseName: string; error: string; backupTimestamp?: string; at: Date },
    links: AppLinks,
  ): Mail {
    return render({
      subject: 'Backup verification failed',
      name: d.name,
      paragraphs: [
        `Coffer restored a backup of your database "${d.databaseName}" into a scratch database to verify it, and what came back did not match what was backed up.`,
      ],
      facts: [
        ['Database', d.databaseName],
        ...(d.backupTimestamp
          ? ([['Backup', formatTime(new Date(d.backupTimestamp))]] as Array<[string, string]>)
          : []),
        ['Checked', formatTime(d.at)],
        ['Reason', clip(d.error.trim()) || 'no details were reported'],
      ],
      after: [
        'Nothing was deleted: the backup and your database are as they were. Take a new backup from ' +
          'the dashboard, and keep an earlier verified backup until a new one verifies.',
      ],
      action: { label: 'Open dashboard', url: links.dashboard },
      footer: manageNotifications(links),
    });
  },

  /** Sent on agent.agent.disconnected when the user keeps "agent disconnection" on. */
  agentDisconnected(
    d: { name: string; agentName: string; hostname: string; at: Date; keyReplaced?: boolean },
    links: AppLinks,
  ): Mail {
    return render({
      subject: 'Agent disconnected',
      name: d.name,
      paragraphs: [
        d.keyReplaced
          ? 'One of your Coffer agents was disconnected because your API key was regenerated.'
          : 'One of your Coffer agents disconnected.',
        'Scheduled backups of its databases will not run until the agent reconnects.',
      ],
      facts: [
        ['Agent', agentLabel({ name: d.agentName, hostname: d.hostname })],
        ['Disconnected', formatTime(d.at)],
      ],
      // A replaced key never comes back by itself: saying it would leave the backups stopped.
      after: d.keyReplaced
        ? [
            'The agent still has the old key, so it cannot reconnect by itself. On its server, give it ' +
              'the new key (coffer-agent init --server …, which asks for it); the dashboard shows the exact ' +
              'command under System Status.',
          ]
        : [
            'Please check that the agent is running on its machine and can reach Coffer; it reconnects by ' +
              'itself once it can.',
          ],
      action: { label: 'Open dashboard', url: links.dashboard },
      footer: manageNotifications(links),
    });
  },
};
export type MailKind = keyof typeof templates;
