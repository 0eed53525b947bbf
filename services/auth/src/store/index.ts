import type { AuthModels } from '../model.js';
import type { AuthStores } from './types.js';
import { billingStore } from './billing.js';
import { endedSessionStore } from './ended-sessions.js';
import { planStore } from './plans.js';
import { resetTokenStore } from './reset-tokens.js';
import { userStore } from './users.js';
import { securitySettingsStore, twoFactorStore } from './two-factor.js';

/** The mongoose-backed stores; the only code of auth that touches the database. */
export function mongoAuthStores(models: AuthModels): AuthStores {
  return {
    plans: planStore(models),
    users: userStore(models),
    resetTokens: resetTokenStore(models),
    billing: billingStore(models),
    endedSessions: endedSessionStore(models),
    twoFactor: twoFactorStore(models),
    securitySettings: securitySettingsStore(models),
  };
}
