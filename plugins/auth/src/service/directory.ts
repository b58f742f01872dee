import { Client, InvalidCredentialsError } from 'ldapts';
import type { AuthEnv } from '../config.ts';
import type { AuthDeployment } from '../deployment/validate.ts';

export interface DirectorySettings {
  url: string;
  bindDn: string;
  bindPassword: string;
  userBase: string;
  /** With `{email}` where the address goes, e.g. `(mail={email})`. */
  userFilter: string;
  groupBase: string | undefined;
  startTls: boolean;
  timeoutMs: number;
}

export interface DirectoryUser {
  dn: string;
  /** The `cn` of every group (groupOfNames) listing the user as `member`. */
  groups: string[];
}

/** RFC 4515: a value inside a search filter must escape \ * ( ) and NUL, or it could change the filter. */
export function escapeFilterValue(value: string): string {
  return value.replace(/[\\*()\0]/g, (c) => `\\${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/**
 * Directory sign-in with ldapts (README, "LDAP sign-in"): a service bind finds the user's DN, then a bind as
 * that DN with the password proves it; group membership comes from a search for groups naming the DN.
 * An empty password is refused before any bind: LDAP treats a simple bind with one as an anonymous,
 * successful bind (RFC 4513 5.1.2), the classic LDAP login bypass.
 */
export function createDirectory(settings: DirectorySettings) {
  const client = () =>
    new Client({ url: settings.url, timeout: settings.timeoutMs, connectTimeout: settings.timeoutMs });
  const open = async () => {
    const c = client();
    if (settings.startTls) await c.startTLS({});
    return c;
  };
  return {
    async authenticate(email: string, password: string): Promise<DirectoryUser | null> {
      if (password.length === 0) return null;
      const service = await open();
      try {
        await service.bind(settings.bindDn, settings.bindPassword);
        const { searchEntries } = await service.search(settings.userBase, {
          scope: 'sub',
          filter: settings.userFilter.replaceAll('{email}', escapeFilterValue(email)),
          attributes: ['dn'],
          sizeLimit: 2,
        });
        // Exactly one entry: none is an unknown user, two would make the address ambiguous.
        if (searchEntries.length !== 1) return null;
        const dn = searchEntries[0]?.dn ?? '';
        const asUser = await open();
        try {
          await asUser.bind(dn, password);
        } catch (err) {
          if (err instanceof InvalidCredentialsError) return null;
          throw err;
        } finally {
          await asUser.unbind().catch(() => undefined);
        }
        let groups: string[] = [];
        if (settings.groupBase) {
          const found = await service.search(settings.groupBase, {
            scope: 'sub',
            filter: `(&(objectClass=groupOfNames)(member=${escapeFilterValue(dn)}))`,
            attributes: ['cn'],
          });
          groups = found.searchEntries
            .flatMap((entry) => (Array.isArray(entry.cn) ? entry.cn : [entry.cn]))
            .map(String);
        }
        return { dn, groups };
      } finally {
        await service.unbind().catch(() => undefined);
      }
    },
  };
}

export type Directory = ReturnType<typeof createDirectory>;

/** A directory to sign in against, with its group → role map. */
export interface DirectorySignIn {
  service: Directory;
  groupRoles: Readonly<Record<string, string>>;
}

/**
 * The directory the settings name, when the deployment turns LDAP sign-in on; undefined otherwise. The
 * settings schema already requires the URL, the user base and the service account whenever LDAP is on.
 */
export function directoryFromConfig(
  config: AuthEnv,
  deployment: AuthDeployment,
): DirectorySignIn | undefined {
  if (
    !deployment.ldap ||
    !config.LDAP_URL ||
    !config.LDAP_USER_BASE ||
    !config.LDAP_BIND_DN ||
    !config.LDAP_BIND_PASSWORD
  )
    return undefined;
  return {
    service: createDirectory({
      url: config.LDAP_URL,
      bindDn: config.LDAP_BIND_DN,
      bindPassword: config.LDAP_BIND_PASSWORD,
      userBase: config.LDAP_USER_BASE,
      userFilter: config.LDAP_USER_FILTER,
      groupBase: config.LDAP_GROUP_BASE,
      startTls: config.LDAP_START_TLS,
      timeoutMs: config.LDAP_TIMEOUT_MS,
    }),
    groupRoles: config.LDAP_GROUP_ROLES,
  };
}
