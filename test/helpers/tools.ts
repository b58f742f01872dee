import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * Finds an external test peer (promtool, slapd, chromium). In CI (`CI=true`) a missing tool fails the
 * test loudly; locally the test is skipped with a message naming the Debian package to install
 * (testing guide, "Rules of thumb").
 */
export async function requireTool(command: string, debianPackage: string): Promise<string | null> {
  try {
    const { stdout } = await run('sh', ['-c', `command -v ${command}`]);
    return stdout.trim();
  } catch {
    const message = `${command} not found: install the Debian package "${debianPackage}" (apt-get install -y ${debianPackage})`;
    if (process.env.CI === 'true') throw new Error(message);
    process.stderr.write(`skipping: ${message}\n`);
    return null;
  }
}
