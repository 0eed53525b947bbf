// The single RTK Query api slice. Its endpoints are generated from the gateway's OpenAPI document
// (generated.ts, `npm run api:gen`) and given their cache tags in cache.ts.
// Every protected call carries `Authorization: Bearer <token>`; a 401 or 403 on such a call is
// reported as `requestRejected`, and the session listener decides (expired, banned, or nothing).
import {
  createApi,
  fetchBaseQuery,
  type BaseQueryFn,
  type FetchArgs,
  type FetchBaseQueryError,
} from '@reduxjs/toolkit/query/react';
import { requestRejected, type AuthState } from '../features/auth/authSlice';
import { httpStatus } from '../lib/errors';
import { addStepUpHeader, isStepUpRequired, requestStepUp } from '../features/auth/stepUp';

/** Endpoints the spec sends without a token (§6): auth flows, the public plan list, the site's settings. */
export const PUBLIC_ENDPOINTS = new Set([
  'login',
  // sign-in's second step: the challenge, not a session, says who it is
  'loginSecondFactor',
  'register',
  'forgotPassword',
  'verifyResetToken',
  'resetPassword',
  'getPlans',
  'getPublicConfig',
  // the server's version and commit (operators, status pages)
  'getServerVersion',
  // the link mailed to a new notification address, opened signed in or not
  'confirmNotificationEmail',
  // knowledge base reads
  'listArticles',
  'listArticleCategories',
  'listArticleTags',
  'getArticle',
]);

const rawBaseQuery = fetchBaseQuery({
  // The generated endpoints call the documented paths, which start with /api.
  baseUrl: '',
  prepareHeaders: (headers, { getState, endpoint }) => {
    const auth = (getState() as { auth: AuthState }).auth;
    // Public reads go without a token for everyone, admins included (an admin finds drafts through
    // the admin list: kb/ArticlePage.tsx).
    if (PUBLIC_ENDPOINTS.has(endpoint)) return headers;
    const token = auth.token;
    if (token) headers.set('Authorization', `Bearer ${token}`);
    addStepUpHeader(headers);
    return headers;
  },
});

const baseQuery: BaseQueryFn<string | FetchArgs, unknown, FetchBaseQueryError> = async (args, api, extra) => {
  let result = await rawBaseQuery(args, api, extra);
  // Two-factor sign-in on and the action needs it again: ask for the code, then retry once.
  if (isStepUpRequired(result.error) && (await requestStepUp()))
    result = await rawBaseQuery(args, api, extra);
  // A refused sign-out is no session problem to report: the session ends here either way.
  if (result.error && !PUBLIC_ENDPOINTS.has(api.endpoint) && api.endpoint !== 'logout') {
    const status = httpStatus(result.error);
    if (status === 401 || status === 403) {
      api.dispatch(requestRejected({ status, body: result.error.data }));
    }
  }
  return result;
};

export const baseApi = createApi({
  reducerPath: 'api',
  baseQuery,
  tagTypes: [
    'Profile',
    'UserPlan',
    'AuditLogs',
    'SystemStatus',
    'Backups',
    'Restores',
    'Databases',
    'Settings',
  ],
  endpoints: () => ({}),
});
