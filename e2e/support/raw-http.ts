import { connect, type Socket } from 'node:net';
import { APP_URL } from './servers';

/** A connection of its own to the app, for requests written by hand. */
export async function connectionToApp(): Promise<Socket> {
  const socket = connect({ host: '127.0.0.1', port: Number(new URL(APP_URL).port) });
  await new Promise((resolve) => socket.once('connect', resolve));
  return socket;
}

/** One raw HTTP/1.1 request on a connection of its own: its status and headers, as the server wrote them. */
export async function rawRequest(requestLine: string): Promise<string> {
  const socket = await connectionToApp();
  const { host } = new URL(APP_URL);
  return new Promise((resolve, reject) => {
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (data: string) => {
      answer += data;
    });
    socket.on('end', () => resolve(answer.split('\r\n\r\n')[0] ?? ''));
    socket.on('error', reject);
    socket.write(`${requestLine}\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
  });
}

/**
 * The head of the answer to a GET that asks to upgrade to WebSocket, or undefined when the
 * connection closed unanswered or nothing came within 5 s.
 */
export async function upgradeRequest(path: string): Promise<string | undefined> {
  const socket = await connectionToApp();
  const { host } = new URL(APP_URL);
  let timer: NodeJS.Timeout | undefined;
  try {
    return await new Promise((resolve) => {
      let answer = '';
      socket.setEncoding('utf8');
      socket.on('data', (data: string) => {
        answer += data;
        if (answer.includes('\r\n\r\n')) resolve(answer.split('\r\n\r\n')[0]);
      });
      socket.on('close', () => resolve(undefined));
      socket.on('error', () => resolve(undefined));
      timer = setTimeout(() => resolve(undefined), 5_000);
      socket.write(
        `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n` +
          'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
      );
    });
  } finally {
    clearTimeout(timer);
    socket.destroy();
  }
}

/**
 * Sends `count` GETs of `path` on one connection at once (pipelined, as HTTP/1.1 allows), takes
 * nothing of the answers for `pauseMs`, then reads until the server closes the connection (an
 * idle kept-alive one after its keep-alive timeout), or for up to 30 s: each answer's head and
 * body as it came, in order.
 */
export async function pipelinedAnswers(
  path: string,
  count: number,
  { headers = {}, pauseMs = 0 }: { headers?: Record<string, string>; pauseMs?: number } = {},
): Promise<string[]> {
  const socket = await connectionToApp();
  const { host } = new URL(APP_URL);
  const head = Object.entries({ host, ...headers }).map(([name, value]) => `${name}: ${value}\r\n`);
  let deadline: NodeJS.Timeout | undefined;
  try {
    socket.write(`GET ${path} HTTP/1.1\r\n${head.join('')}\r\n`.repeat(count));
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
    const received = await new Promise<string>((resolve) => {
      let text = '';
      socket.setEncoding('latin1');
      socket.on('data', (data: string) => {
        text += data;
      });
      for (const ending of ['end', 'close', 'error']) socket.on(ending, () => resolve(text));
      deadline = setTimeout(() => resolve(text), 30_000);
    });
    // Each answer starts with its status line: right after the one before, whose body need not
    // end a line (a file sent with its length).
    return received.split(/(?=HTTP\/1\.1 \d{3} )/).filter((answer) => answer !== '');
  } finally {
    clearTimeout(deadline);
    socket.destroy();
  }
}
