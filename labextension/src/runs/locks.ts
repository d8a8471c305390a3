/**
 * The site's locks, as the lab shows them: an administrator's `jupyter_agents_config.json` may
 * lock who answers approvals and the notebook's mode at a floor (nobody may choose looser; the
 * kernel refuses a looser value whatever the page says). The package's server extension answers
 * them at `GET /jupyter-agents/locks` (jupyter_agents/server_extension.py); a server without it,
 * or any error, means no locks known.
 *
 * What the server sends is data: each field is checked (known keys only, values from the
 * contract's lists, the file as plain text, shown only as text).
 */
import { ServerConnection } from '@jupyterlab/services';
import { ISettingRegistry } from '@jupyterlab/settingregistry';

import { isObject, isOneOf, Untrusted } from '../untrusted';
import { APPROVE_MODES, ApproveMode, Mode, MODES } from './contract';

/** The endpoint, under the server's base URL. */
export const LOCKS_PATH = 'jupyter-agents/locks';

/** The setting of `jupyter-agents:runs` that a lock of `approve` bounds. */
export const APPROVAL_SETTING = 'defaultApproval';

/** A locked setting of named values. */
export interface Lock<T extends string> {
  /** The loosest value anyone may choose. */
  value: T;
  /** The site's file that locks it (plain text). */
  file: string;
  /** The values still allowed, the strictest first (the server's order; `value` among them). */
  allowed: readonly T[];
}

/** The locks the lab shows: who answers approvals, and the notebook's mode. */
export interface SiteLocks {
  approve: Lock<ApproveMode> | null;
  mode: Lock<Mode> | null;
}

/** Nothing locked (or nothing known). */
export const NO_LOCKS: SiteLocks = { approve: null, mode: null };

/** The longest file name shown; a longer one is cut. */
export const MAX_FILE = 500;

/** Control characters, and the marks that reorder text (a file name shown reversed). */
// eslint-disable-next-line no-control-regex
const UNSHOWN = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** `text` without `UNSHOWN` characters, cut to `MAX_FILE`. */
function plainText(text: string): string {
  const clean = text.replace(UNSHOWN, '');
  return clean.length > MAX_FILE ? `${clean.slice(0, MAX_FILE - 1)}…` : clean;
}

/** One lock as received, or null when any field is not what the contract says. */
function parseLock<T extends string>(values: readonly T[], raw: unknown): Lock<T> | null {
  if (!isObject(raw)) {
    return null;
  }
  const lock: Untrusted<Lock<T>> = raw;
  const { value, file, allowed } = lock;
  if (!isOneOf(values, value) || typeof file !== 'string' || !Array.isArray(allowed)) {
    return null;
  }
  const kept = allowed.filter((v: unknown): v is T => isOneOf(values, v));
  if (kept.length !== allowed.length || new Set(kept).size !== kept.length) {
    return null;
  }
  if (!kept.includes(value) || file.trim() === '') {
    return null;
  }
  return { value, file: plainText(file), allowed: kept };
}

/** The locks in the endpoint's answer (`{"locks": {KEY: {value, file, allowed}}}`); other keys
 * are the kernel's business and are left out. */
export function parseLocks(body: unknown): SiteLocks {
  const answer: Untrusted<{ locks: unknown }> = isObject(body) ? body : {};
  const locks: Untrusted<{ approve: unknown; mode: unknown }> = isObject(answer.locks)
    ? answer.locks
    : {};
  return { approve: parseLock(APPROVE_MODES, locks.approve), mode: parseLock(MODES, locks.mode) };
}

/** `value` when `lock` allows it, else the lock's value. */
export function clamp<T extends string>(lock: Lock<T> | null, value: T): T {
  return lock === null || lock.allowed.includes(value) ? value : lock.value;
}

/** Whether `lock` allows `value` (no lock allows everything). */
export function allows<T extends string>(lock: Lock<T> | null, value: T): boolean {
  return lock === null || lock.allowed.includes(value);
}

/** "Locked by your administrator: at least as careful as ask (/etc/jupyter/...)." */
export function lockNote(lock: Lock<string>, as: 'careful' | 'strict'): string {
  return `Locked by your administrator: at least as ${as} as ${lock.value} (${lock.file}).`;
}

/**
 * `plugin` (`jupyter-agents:runs`, as composed) with the Default approval mode held to the lock:
 * its schema offers only the allowed values and says it is locked, and a looser value (the
 * person's, or the default) reads as the lock's. Done when composing, after the registry has
 * validated what the person saved against the whole list: restricting the schema it validates
 * with would make a looser saved value fail, and the plugin's settings with it.
 */
export function lockedPlugin(
  plugin: ISettingRegistry.IPlugin,
  locks: SiteLocks
): ISettingRegistry.IPlugin {
  const lock = locks.approve;
  const property = plugin.schema.properties?.[APPROVAL_SETTING];
  if (lock === null || property === undefined) {
    return plugin;
  }
  const listed = Array.isArray(property.enum) ? property.enum : APPROVE_MODES;
  const shown: ISettingRegistry.IProperty = {
    ...property,
    enum: lock.allowed.filter(value => listed.includes(value)),
    default: isOneOf(APPROVE_MODES, property.default)
      ? clamp(lock, property.default)
      : lock.value,
    description: [property.description, lockNote(lock, 'careful')].filter(Boolean).join(' ')
  };
  const composite = { ...plugin.data.composite };
  const value = composite[APPROVAL_SETTING];
  composite[APPROVAL_SETTING] = isOneOf(APPROVE_MODES, value) ? clamp(lock, value) : lock.value;
  return {
    ...plugin,
    schema: {
      ...plugin.schema,
      properties: { ...plugin.schema.properties, [APPROVAL_SETTING]: shown }
    },
    data: { ...plugin.data, composite }
  };
}

/** How long the page waits for the locks before going on without them. */
export const LOCKS_TIMEOUT_MS = 10_000;

/** The site's locks from the server (`NO_LOCKS` on a 404, any error, or a late answer). */
export async function fetchLocks(settings: ServerConnection.ISettings): Promise<SiteLocks> {
  const url = `${settings.baseUrl.replace(/\/?$/, '/')}${LOCKS_PATH}`;
  try {
    const response = await ServerConnection.makeRequest(
      url,
      { method: 'GET', signal: AbortSignal.timeout(LOCKS_TIMEOUT_MS) },
      settings
    );
    return response.ok ? parseLocks(await response.json()) : NO_LOCKS;
  } catch {
    return NO_LOCKS;
  }
}
