// The REST contract as the web app reads it (spec §3 and §7). Kept in one place so a change in the
// gateway's schemas shows up as one diff here.

export type Role = 'user' | 'admin' | (string & {});

/** User as returned by login and register, and kept in the local session record. */
export interface SessionUser {
  id: string;
  email: string;
  name: string;
  role: Role;
  apiKey: string;
  isBanned: boolean;
  banReason: string | null;
  bannedAt: string | null;
}

export interface AuthResponse {
  message: string;
  token: string;
  user: SessionUser;
}

export interface LoginRequest {
  email: string;
  password: string;
}

export interface RegisterRequest {
  name: string;
  email: string;
  password: string;
}

export interface MessageResponse {
  message: string;
}

export interface ForgotPasswordResponse {
  message: string;
  resetToken?: string;
  resetUrl?: string;
}

export interface VerifyResetTokenResponse {
  message: string;
  valid: boolean;
}

export interface PlanFeature {
  text: string;
}

export interface Plan {
  _id: string;
  name: string;
  price: number;
  popular: boolean;
  dbLimit: number;
  /** hours */
  retentionLimit: number;
  /** bytes */
  storageLimit: number;
  /** hours */
  frequencyLimit: number;
  features: PlanFeature[];
}

export interface Profile {
  _id: string;
  name: string;
  email: string;
  /** plan id */
  plan: string;
  /** bytes */
  storageUsed: number;
  apiKey: string;
  role: Role;
}

export interface UpdateProfileRequest {
  name: string;
  email: string;
}

export interface UpdateProfileResponse {
  message: string;
  user: Profile;
}

export interface ChangePasswordRequest {
  currentPassword: string;
  newPassword: string;
}

export interface UpdatePlanResponse {
  message: string;
  plan: Plan;
}

export interface AuditLogDetails {
  name?: string;
  hostname?: string;
  type?: string;
  databaseName?: string;
  error?: string;
  value?: unknown;
}

export interface AuditLog {
  id: string;
  timestamp: string;
  action: string;
  entity: string;
  entityId?: string;
  actor: string;
  details?: AuditLogDetails | null;
}

export interface Pagination {
  total: number;
  page: number;
  pages: number;
}

export interface AuditLogsResponse {
  logs: AuditLog[];
  pagination: Pagination;
}

export interface Agent {
  id: string;
  name: string;
  version: string;
  platform: string;
  status: 'active' | 'inactive' | (string & {});
  lastSeen?: string;
}

export interface SystemStatus {
  agents: Agent[];
  backupService: boolean;
}

export interface RegenerateApiKeyResponse {
  apiKey: string;
  message: string;
}

/** Body of every 403 for a banned account. */
export interface BannedErrorBody {
  message: string;
  code: 'ACCOUNT_BANNED';
  isBanned: true;
  banReason: string | null;
  bannedAt: string | null;
}

export type JobStatusValue = 'pending' | 'in-progress' | 'completed' | 'failed' | (string & {});

export interface Backup {
  _id: string;
  databaseName: string;
  timestamp: string;
  createdAt: string;
  /** bytes */
  size: number;
  status: JobStatusValue;
  type?: 'manual' | 'auto' | (string & {});
  error?: string | null;
}

/** 429 body of POST /api/backups. */
export interface BackupRateLimitedBody {
  message: string;
  code: 'BACKUP_RATE_LIMITED';
  /** ISO date */
  nextBackupAvailable: string;
}

export interface Restore {
  _id: string;
  backupId: string;
  databaseName: string;
  status: JobStatusValue;
  createdAt: string;
  completedAt?: string | null;
  error?: string | null;
  documentsRestored?: number;
  documentsFailed?: number;
}

export interface RestoreResponse {
  message: string;
  restore: Restore;
}

export interface Database {
  _id: string;
  name: string;
  isActive: boolean;
}

export interface NotificationSettings {
  backupSuccess: boolean;
  backupFailure: boolean;
  agentDisconnection: boolean;
}

/** GET /api/settings: frequency and retention in hours. */
export interface Settings {
  frequency: number;
  retention: number;
  notifications: NotificationSettings;
  email?: string;
}

export type FrequencyName = 'hourly' | 'daily' | 'weekly' | 'monthly';

/** PUT /api/settings: frequency by name, retention in hours. */
export interface UpdateSettingsRequest {
  frequency: FrequencyName;
  retention: number;
  notifications: NotificationSettings;
  email?: string;
}

export type AgentAction = 'restart' | 'update' | 'reset';
