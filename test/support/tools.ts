import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * Finds an external test peer (promtool, slapd, chromium). In CI (`CI=true`) a missing tool fails the test
 * loudly; locally the test is skipped with a message naming the Debian package to install (docs/testing.md,
 * "Rules the suites follow").
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

/**
 * `promtool check metrics` over an exposition text: what it printed and its exit code (0 and nothing
 * printed means the format and the lint rules pass), or null when promtool is missing locally.
 */
export async function promtoolCheck(
  exposition: string,
): Promise<{ code: number; stdout: string; stderr: string } | null> {
  const promtool = await requireTool('promtool', 'prometheus');
  if (!promtool) return null;
  const { writeFile } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const path = await import('node:path');
  const file = path.join(tmpdir(), `gatehouse-metrics-${process.pid}-${Date.now()}.txt`);
  await writeFile(file, exposition);
  // promtool reads the exposition from stdin; lint problems and parse errors make it exit non-zero.
  const result = await run('sh', ['-c', `${promtool} check metrics < ${file}`]).catch(
    (err: { stdout: string; stderr: string; code: number }) => err,
  );
  return { code: 'code' in result ? result.code : 0, stdout: result.stdout, stderr: result.stderr };
}
