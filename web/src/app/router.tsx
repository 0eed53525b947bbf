import type { ReactNode } from 'react';
import { createBrowserRouter, type RouteObject } from 'react-router';
import { AuditLogsPage } from '../features/audit/AuditLogsPage';
import { BannedPage } from '../features/auth/BannedPage';
import { ForgotPasswordPage } from '../features/auth/ForgotPasswordPage';
import { RequireAdmin, RequireAuth } from '../features/auth/guards';
import { LoginPage } from '../features/auth/LoginPage';
import { RegisterPage } from '../features/auth/RegisterPage';
import { ResetPasswordPage } from '../features/auth/ResetPasswordPage';
import { DashboardPage } from '../features/dashboard/DashboardPage';
import { ProfilePage } from '../features/profile/ProfilePage';
import { SettingsPage } from '../features/settings/SettingsPage';
import { ConfirmNotificationEmailPage } from '../features/settings/ConfirmNotificationEmailPage';
import { AboutPage } from '../features/public/AboutPage';
import { ContactPage } from '../features/public/ContactPage';
import { FeaturesPage } from '../features/public/FeaturesPage';
import { HomePage } from '../features/public/HomePage';
import { AdminKbEditorPage } from '../features/admin-kb/AdminKbEditorPage';
import { AdminKbListPage } from '../features/admin-kb/AdminKbListPage';
import { KnowledgeBaseArticlePage } from '../features/kb/ArticlePage';
import { KnowledgeBasePage } from '../features/kb/KnowledgeBasePage';
import { AdminPage } from '../features/admin/AdminPage';
import { NotFoundPage } from '../features/public/pages';
import { PrivacyPage } from '../features/public/PrivacyPage';
import { TermsPage } from '../features/public/TermsPage';
import { AppShell } from '../features/shell/AppShell';
import { RouteError } from '../features/shell/PageStates';
import type { RouteHandle } from '../features/shell/RouteEffects';
import { setNavigator } from './navigation';

const page = (path: string, title: string, element: ReactNode): RouteObject => ({
  path,
  element,
  handle: { title } satisfies RouteHandle,
});

export const routes: RouteObject[] = [
  {
    element: <AppShell />,
    errorElement: <RouteError />,
    children: [
      // public
      page('/', 'Home', <HomePage />),
      page('/features', 'Features', <FeaturesPage />),
      page('/about', 'About', <AboutPage />),
      page('/contact', 'Contact', <ContactPage />),
      page('/privacy', 'Privacy Policy', <PrivacyPage />),
      page('/terms', 'Terms of Service', <TermsPage />),
      page('/login', 'Sign In', <LoginPage />),
      page('/register', 'Register', <RegisterPage />),
      page('/banned', 'Account Suspended', <BannedPage />),
      page('/forgot-password', 'Forgot Password', <ForgotPasswordPage />),
      page('/reset-password/:token', 'Reset Password', <ResetPasswordPage />),
      page(
        '/confirm-notification-email/:token',
        'Confirm Notification Email',
        <ConfirmNotificationEmailPage />,
      ),
      page('/kb', 'Knowledge Base', <KnowledgeBasePage />),
      page('/kb/:slug', 'Knowledge Base', <KnowledgeBaseArticlePage />),
      // login required
      {
        element: <RequireAuth />,
        children: [
          page('/dashboard', 'Dashboard', <DashboardPage />),
          page('/settings', 'Settings', <SettingsPage />),
          page('/profile', 'Profile', <ProfilePage />),
          page('/audit-logs', 'Audit Logs', <AuditLogsPage />),
        ],
      },
      // admin only
      {
        element: <RequireAdmin />,
        children: [
          page('/admin', 'Admin Dashboard', <AdminPage />),
          page('/admin/kb', 'Manage Knowledge Base', <AdminKbListPage />),
          page('/admin/kb/new', 'New Article', <AdminKbEditorPage />),
          page('/admin/kb/:id', 'Edit Article', <AdminKbEditorPage />),
        ],
      },
      page('*', 'Page Not Found', <NotFoundPage />),
    ],
  },
];

export const router = createBrowserRouter(routes);

setNavigator((to, options) => {
  void router.navigate(to, options);
});
