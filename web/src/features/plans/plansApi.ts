import { baseApi } from '../../api/baseApi';
import type { Plan } from '../../api/types';

export const plansApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    // Public: sent without a token (home page pricing and the profile's plan grid).
    getPlans: build.query<Plan[], void>({
      query: () => '/settings/plans',
      transformErrorResponse: (error) => {
        console.error('Failed to fetch plans', error);
        return error;
      },
    }),
  }),
});

export const { useGetPlansQuery } = plansApi;
