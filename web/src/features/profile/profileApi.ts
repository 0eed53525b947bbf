import { baseApi } from '../../api/baseApi';
import type {
  ChangePasswordRequest,
  MessageResponse,
  Plan,
  Profile,
  UpdatePlanResponse,
  UpdateProfileRequest,
  UpdateProfileResponse,
} from '../../api/types';

export const profileApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    getProfile: build.query<Profile, void>({
      query: () => '/user/profile',
      providesTags: ['Profile'],
    }),
    getUserPlan: build.query<Plan, void>({
      query: () => '/user/plan',
      providesTags: ['UserPlan'],
    }),
    updateProfile: build.mutation<UpdateProfileResponse, UpdateProfileRequest>({
      query: (body) => ({ url: '/user/update', method: 'PUT', body }),
      invalidatesTags: ['Profile', 'AuditLogs'],
    }),
    changePassword: build.mutation<MessageResponse, ChangePasswordRequest>({
      query: (body) => ({ url: '/user/password', method: 'PUT', body }),
      invalidatesTags: ['AuditLogs'],
    }),
    updatePlan: build.mutation<UpdatePlanResponse, string>({
      query: (plan) => ({ url: '/user/plan', method: 'PUT', body: { plan } }),
      invalidatesTags: ['Profile', 'UserPlan', 'AuditLogs'],
    }),
  }),
});

export const {
  useGetProfileQuery,
  useGetUserPlanQuery,
  useUpdateProfileMutation,
  useChangePasswordMutation,
  useUpdatePlanMutation,
} = profileApi;
