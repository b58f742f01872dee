import { spawn } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'ldapts';
import { freePort } from './process.ts';
import { requireTool } from './tools.ts';

export interface Slapd {
  url: string;
  adminDn: string;
  adminPassword: string;
  /** Adds entries as the directory administrator. */
  add(entries: ReadonlyArray<[dn: string, attributes: Record<string, string | string[]>]>): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A real OpenLDAP `slapd` (Debian package "slapd") on 127.0.0.1 with its own config and an mdb database in
 * a temporary folder, so LDAP sign-in is tested against the server deployments use rather than a stand-in.
 * Null when slapd is missing outside CI (`requireTool`: CI fails instead).
 */
export async function startSlapd(suffix = 'dc=example,dc=com'): Promise<Slapd | null> {
  const binary = await requireTool('slapd', 'slapd');
  if (!binary) return null;
  const dir = path.join(tmpdir(), `gatehouse-slapd-${process.pid}-${Date.now()}`);
  await mkdir(path.join(dir, 'db'), { recursive: true });
  const adminDn = `cn=admin,${suffix}`;
  const adminPassword = 'directory-admin-secret';
  await writeFile(
    path.join(dir, 'slapd.conf'),
    [
      ...['core', 'cosine', 'inetorgperson', 'nis'].map(
        (schema) => `include /etc/ldap/schema/${schema}.schema`,
      ),
      'modulepath /usr/lib/ldap',
      'moduleload back_mdb',
      `pidfile ${dir}/slapd.pid`,
      'database mdb',
      'maxsize 10485760',
      `suffix "${suffix}"`,
      `rootdn "${adminDn}"`,
      `rootpw ${adminPassword}`,
      `directory ${dir}/db`,
      '',
    ].join('\n'),
  );
  const port = await freePort();
  const url = `ldap://127.0.0.1:${port}`;
  const child = spawn(binary, ['-f', path.join(dir, 'slapd.conf'), '-h', `${url}/`, '-d', '0'], {
    stdio: 'ignore',
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // Ready when an administrator bind succeeds; slapd takes a few milliseconds to listen.
  const deadline = Date.now() + 10_000;
  for (;;) {
    const client = new Client({ url, connectTimeout: 500 });
    try {
      await client.bind(adminDn, adminPassword);
      await client.unbind();
      break;
    } catch (err) {
      if (Date.now() > deadline)
        throw new Error(`slapd did not start: ${(err as Error).message}`, { cause: err });
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return {
    url,
    adminDn,
    adminPassword,
    async add(entries) {
      const client = new Client({ url });
      await client.bind(adminDn, adminPassword);
      try {
        for (const [dn, attributes] of entries) await client.add(dn, attributes);
      } finally {
        await client.unbind();
      }
    },
    async stop() {
      child.kill('SIGTERM');
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}
