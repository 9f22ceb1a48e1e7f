import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpSender, RESPONSE_CAP_BYTES } from './webhook-sender.js';

/** A receiver that answers by path: /ok, /big (far more than the cap), /hang (never). */
let receiver: http.Server;
let base: string;
let requests = 0;
beforeAll(async () => {
  receiver = http.createServer((request, response) => {
    requests += 1;
    request.resume();
    if (request.url === '/hang') return;
    if (request.url === '/big') {
      response.writeHead(200);
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const write = () => { while (response.write(chunk)); };
      response.on('drain', write);
      write();
      return;
    }
    response.writeHead(200).end('ok');
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  base = `127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(async () => {
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
});

const attempt = (url: string) => ({ url, secret: 'sixteen-chars-ok', deliveryId: '1', body: '{}' });

describe('one webhook attempt', () => {
  it('checks the target when it sends: an internal address or a name resolving to one is not contacted unless allowed', async () => {
    const strict = httpSender({ allowedHosts: new Set(), timeoutMs: 5_000 });
    const before = requests;
    const byAddress = await strict(attempt(`http://${base}/ok`));
    const byName = await strict(attempt(`http://${base.replace('127.0.0.1', 'localhost')}/ok`));
    expect(byAddress).toMatchObject({ status: null, error: expect.stringMatching(/is not allowed: webhooks may reach public addresses only/) });
    expect(byName).toMatchObject({ status: null, error: expect.stringMatching(/localhost is not allowed/) });
    // Where the name resolves is not said: lastError is shown to every reader.
    expect(`${byAddress.error} ${byName.error}`).not.toMatch(/resolves to|::1/);
    expect(requests).toBe(before);
    expect(await httpSender({ allowedHosts: new Set(['127.0.0.1']), timeoutMs: 5_000 })(attempt(`http://${base}/ok`))).toEqual({ status: 200 });
  });

  it(`reads at most ${RESPONSE_CAP_BYTES} bytes of an endless answer, and gives up on one that never comes`, async () => {
    // Without the cap the endless answer would run into the timeout and give no status.
    const patient = httpSender({ allowedHosts: new Set(['127.0.0.1']), timeoutMs: 30_000 });
    expect(await patient(attempt(`http://${base}/big`))).toEqual({ status: 200 });
    const brief = httpSender({ allowedHosts: new Set(['127.0.0.1']), timeoutMs: 300 });
    expect(await brief(attempt(`http://${base}/hang`))).toEqual({ status: null, error: 'no answer within 300 ms' });
  });
});
