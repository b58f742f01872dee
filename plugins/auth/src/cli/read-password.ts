import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';

/**
 * Reads a password for a CLI command: from a terminal, prompted twice without echo; otherwise all of
 * stdin with one trailing newline removed (`echo "$PASSWORD" | gatehouse admin create ...`).
 */
export async function readPassword(io: {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream;
}): Promise<string | null> {
  if (!io.stdin.isTTY) {
    let text = '';
    for await (const chunk of io.stdin)
      text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    return text.replace(/\r?\n$/, '');
  }
  const first = await prompt(io, 'Password: ');
  const second = await prompt(io, 'Repeat password: ');
  return first === second ? first : null;
}

function prompt(
  io: { stdin: NodeJS.ReadableStream; stderr: NodeJS.WritableStream },
  question: string,
): Promise<string> {
  io.stderr.write(question);
  // The terminal echo goes to a sink: the password never appears on screen.
  const silent = new Writable({ write: (_chunk, _encoding, done) => done() });
  const rl = createInterface({ input: io.stdin, output: silent, terminal: true });
  return new Promise((resolve) => {
    rl.question('', (answer) => {
      rl.close();
      io.stderr.write('\n');
      resolve(answer);
    });
  });
}
