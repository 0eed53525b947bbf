import { z } from 'zod';
import type { Clients } from '../clients.js';
import { passSession, type Identity } from '../http/identity.js';
import type { RouteTable } from '../http/route.js';

const securitySettings = z
  .object({
    requireAdminTwoFactor: z
      .boolean()
      .describe(
        'admins must use two-factor sign-in; one without it is sent to set it up before anything else',
      ),
  })
  .meta({ id: 'SecuritySettings' });

/** /api/admin/security: site-wide security settings (admins only). */
export function adminSecurityRoutes(
  t: RouteTable,
  deps: { clients: Clients; identity: Pick<Identity, 'forget' | 'bearer'> },
) {
  const { clients } = deps;

  t.add({
    method: 'get',
    path: '/api/admin/security',
    operationId: 'adminGetSecuritySettings',
    summary: 'Site-wide security settings',
    tag: 'admin',
    access: 'admin',
    response: securitySettings,
    handler: () => clients.auth.getSecuritySettings({}),
  });

  t.add({
    method: 'put',
    path: '/api/admin/security',
    operationId: 'adminUpdateSecuritySettings',
    summary: 'Require (or stop requiring) two-factor sign-in for admins',
    tag: 'admin',
    access: 'admin',
    body: securitySettings,
    response: securitySettings,
    handler: async ({ req, caller, body }) => {
      // Auth checks for itself who acts.
      const res = await clients.auth.adminSetSecuritySettings(body, passSession(deps.identity, req));
      // The acting admin's own requirement shows at once on this gateway; other admins' within the cache time.
      deps.identity.forget(caller.id);
      return res;
    },
  });
}
