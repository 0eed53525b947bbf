// The settings form shared by the General and Notifications tabs: loaded once from GET
// /api/settings, saved as a whole with PUT /api/settings (product §3 Settings, §7).
import { useCallback, useEffect, useRef, useState } from 'react';
import { DEFAULT_GFS } from '@coffer/contracts';
import {
  useUpdateSettingsMutation,
  type Frequency,
  type GfsCounts,
  type NotificationSettings,
  type RetentionMode,
  type Settings,
} from '../../api/generated';
import { DEFAULT_RETENTION, frequencyFromHours } from '../../lib/schedule';
import { serverMessage } from '../../lib/errors';

/** 'Saved!' shows this long on the button that saved (product §9). */
export const SAVED_MS = 3000;
export const SAVE_FAILED = 'Failed to save settings. Please try again.';

export interface SettingsForm {
  frequency: Frequency;
  /** hours */
  retention: number;
  retentionMode: RetentionMode;
  /** The GFS counts shown (the saved ones, else the suggestion); sent only when GFS is chosen. */
  gfs: GfsCounts;
  notifications: NotificationSettings;
  email: string;
}

export const DEFAULT_NOTIFICATIONS: NotificationSettings = {
  backupSuccess: true,
  backupFailure: true,
  agentDisconnection: true,
};

export function formFromSettings(settings: Settings | undefined, fallbackEmail: string): SettingsForm {
  return {
    frequency: frequencyFromHours(settings?.frequency),
    retention:
      typeof settings?.retention === 'number' && settings.retention > 0
        ? settings.retention
        : DEFAULT_RETENTION,
    retentionMode: settings?.retentionMode === 'gfs' ? 'gfs' : 'days',
    gfs: { ...(settings?.gfs ?? DEFAULT_GFS) },
    notifications: { ...DEFAULT_NOTIFICATIONS, ...(settings?.notifications ?? {}) },
    email: settings?.email || fallbackEmail,
  };
}

/** Which button saved: its label reads 'Saved!' for 3 s. */
export type SaveSource = 'general' | 'email' | 'notifications';

export function useSaveSettings() {
  const [update, { isLoading }] = useUpdateSettingsMutation();
  const [saved, setSaved] = useState<SaveSource | null>(null);
  const [failed, setFailed] = useState<SaveSource | null>(null);
  /** The server's reason for the last failure, e.g. why a notification address was refused. */
  const [failedMessage, setFailedMessage] = useState<string | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );

  const save = useCallback(
    async (form: SettingsForm, source: SaveSource) => {
      setFailed(null);
      setFailedMessage(null);
      try {
        // An empty address goes back to the account's e-mail on the server; a new one is only
        // mailed a confirmation link, so the General tab does not send it along.
        await update({
          frequency: form.frequency,
          retention: form.retention,
          retentionMode: form.retentionMode,
          gfs: form.retentionMode === 'gfs' ? form.gfs : undefined,
          notifications: form.notifications,
          email: source === 'general' ? undefined : form.email.trim(),
        }).unwrap();
        setSaved(source);
        if (timer.current) clearTimeout(timer.current);
        timer.current = setTimeout(() => setSaved(null), SAVED_MS);
        return true;
      } catch (err) {
        console.error('Failed to save settings', err);
        setSaved(null);
        setFailed(source);
        setFailedMessage(serverMessage(err) ?? null);
        return false;
      }
    },
    [update],
  );

  return { save, saving: isLoading, saved, failed, failedMessage };
}
