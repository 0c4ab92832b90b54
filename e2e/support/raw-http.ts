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

/** `count` GETs of `path`, one after another as one write (pipelined, as HTTP/1.1 allows). */
function pipelinedGets(path: string, count: number, headers: Record<string, string>): string {
  const { host } = new URL(APP_URL);
  const head = Object.entries({ host, ...headers }).map(([name, value]) => `${name}: ${value}\r\n`);
  return `GET ${path} HTTP/1.1\r\n${head.join('')}\r\n`.repeat(count);
}

/**
 * Sends `count` GETs of `path` on one connection at once (pipelined), takes
 * nothing of the answers for `pauseMs`, then reads for up to 30 s: how many answers came before
 * the connection ended, all of them, or as many as came in that time.
 */
export async function answersAfterPause(
  path: string,
  count: number,
  pauseMs: number,
  headers: Record<string, string> = {},
): Promise<number> {
  const socket = await connectionToApp();
  const statusLine = 'HTTP/1.1 200 OK\r\n';
  let deadline: NodeJS.Timeout | undefined;
  try {
    socket.write(pipelinedGets(path, count, headers));
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
    return await new Promise((resolve) => {
      let answers = 0;
      // The end of the last chunk, for a status line split between two.
      let tail = '';
      socket.setEncoding('latin1');
      socket.on('data', (data: string) => {
        const text = tail + data;
        answers += text.split(statusLine).length - 1;
        tail = text.slice(-(statusLine.length - 1));
        if (answers === count) resolve(answers);
      });
      for (const ending of ['end', 'close', 'error']) socket.on(ending, () => resolve(answers));
      deadline = setTimeout(() => resolve(answers), 30_000);
    });
  } finally {
    clearTimeout(deadline);
    socket.destroy();
  }
}

/**
 * Sends `count` GETs of `path` on one connection at once (pipelined) and reads until the server
 * closes it, or for up to 30 s: each answer's head and body as it came, in order.
 */
export async function pipelinedAnswers(
  path: string,
  count: number,
  headers: Record<string, string> = {},
): Promise<string[]> {
  const socket = await connectionToApp();
  let deadline: NodeJS.Timeout | undefined;
  try {
    const received = await new Promise<string>((resolve) => {
      let text = '';
      socket.setEncoding('latin1');
      socket.on('data', (data: string) => {
        text += data;
      });
      for (const ending of ['end', 'close', 'error']) socket.on(ending, () => resolve(text));
      deadline = setTimeout(() => resolve(text), 30_000);
      socket.write(pipelinedGets(path, count, headers));
    });
    // Each answer starts with its status line, at the start of a line.
    return received.split(/(?<=^|\r\n)(?=HTTP\/1\.1 \d{3} )/).filter((answer) => answer !== '');
  } finally {
    clearTimeout(deadline);
    socket.destroy();
  }
}
