/** The first port from `start` on that nothing listens on (at `host`), trying `tries` ports. */
import { createServer } from 'node:net';

export async function firstFreePort(host: string, start: number, tries = 20): Promise<number> {
  for (let port = start; port < Math.min(start + tries, 65536); port++) {
    if (await isFree(host, port)) return port;
  }
  throw new Error(
    `ports ${start} to ${Math.min(start + tries, 65536) - 1} are all taken on ${host}; choose another with --port N`,
  );
}

function isFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE' || error.code === 'EACCES') resolve(false);
      else reject(error);
    });
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}
