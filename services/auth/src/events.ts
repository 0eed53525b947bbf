import type { EventBus } from '@coffer/common';

/**
 * What auth publishes (all on the AUTH stream): auth.user.registered, password_changed,
 * email_changed, api_key_regenerated, plan_changed, role_changed, status_changed, ban_changed,
 * deleted (message id `auth.user.deleted:<userId>`), reset_requested, two_factor_enabled,
 * two_factor_disabled, recovery_code_used, recovery_codes_regenerated, and
 * auth.security.admin_two_factor_changed.
 * Auth consumes no events.
 */
export type AuthEvents = Pick<EventBus, 'publish'>;
export const AUTH_STREAMS = ['AUTH'] as const;
