import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { closeMailTransports, listOutbox, sendMail } from '../../src/platform/mail.ts';
import type { PortalDeps } from '../../src/portal/index.ts';
import { mailHint } from '../../src/portal/pages/my-mail.ts';
import { type TestGateway, testGateway } from '../support/runtime.ts';
import { PortalClient, signedInUser } from './support/api.ts';

/** A minimal SMTP server on 127.0.0.1 that accepts every message and keeps its DATA. */
function fakeSmtp(): Promise<{ server: Server; port: number; messages: string[] }> {
  const messages: string[] = [];
  const server = createServer((socket) => {
    let buffer = '';
    let inData = false;
    socket.write('220 localhost ESMTP test\r\n');
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      while (true) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          messages.push(buffer.slice(0, end));
          buffer = buffer.slice(end + 5);
          inData = false;
          socket.write('250 2.0.0 queued\r\n');
          continue;
        }
        const newline = buffer.indexOf('\r\n');
        if (newline < 0) return;
        const line = buffer.slice(0, newline).toUpperCase();
        buffer = buffer.slice(newline + 2);
        if (line.startsWith('EHLO')) socket.write('250-localhost\r\n250 8BITMIME\r\n');
        else if (line.startsWith('DATA')) {
          inData = true;
          socket.write('354 go ahead\r\n');
        } else if (line.startsWith('QUIT')) socket.end('221 bye\r\n');
        else socket.write('250 OK\r\n');
      }
    });
    socket.on('error', () => {});
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve({ server, port: typeof address === 'object' && address ? address.port : 0, messages });
    }),
  );
}

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await testGateway();
});
afterAll(async () => {
  closeMailTransports();
  await gateway?.close();
});

describe('mail', () => {
  it('keeps every message in the outbox when no SMTP server is configured', async () => {
    const pool = gateway.runtime.gateway.pool;
    const entry = await sendMail(
      { pool, from: 'no-reply@localhost' },
      { to: 'ada@example.test', subject: 'Hello', text: 'Plain', html: '<p>Rich</p>' },
    );
    expect(entry).toMatchObject({ to: 'ada@example.test', subject: 'Hello', sentAt: null, error: null });
    const [latest] = await listOutbox(pool, { to: 'ADA@example.test' });
    expect(latest?.id).toBe(entry.id);
    expect(latest?.html).toBe('<p>Rich</p>');
  });

  it('sends through SMTP when configured, and records the outcome', async () => {
    const smtp = await fakeSmtp();
    try {
      const pool = gateway.runtime.gateway.pool;
      const entry = await sendMail(
        { pool, smtpUrl: `smtp://127.0.0.1:${smtp.port}`, from: 'gateway@example.test' },
        { to: 'bob@example.test', subject: 'Approved', text: 'Your subscription is active.' },
      );
      expect(entry.sentAt).toBeInstanceOf(Date);
      expect(entry.error).toBeNull();
      expect(smtp.messages).toHaveLength(1);
      expect(smtp.messages[0]).toContain('Subject: Approved');
      expect(smtp.messages[0]).toContain('To: bob@example.test');
      expect(smtp.messages[0]).toContain('Your subscription is active.');
    } finally {
      smtp.server.close();
    }
  });

  it('records an SMTP failure instead of failing the caller', async () => {
    const closed = await fakeSmtp();
    const port = closed.port;
    await new Promise((resolve) => closed.server.close(resolve));
    const entry = await sendMail(
      {
        pool: gateway.runtime.gateway.pool,
        smtpUrl: `smtp://127.0.0.1:${port}`,
        from: 'gateway@example.test',
      },
      { to: 'carol@example.test', subject: 'Lost', text: 'x' },
    );
    expect(entry.sentAt).toBeNull();
    expect(entry.error).toMatch(/ECONNREFUSED|connect/i);
  });

  it('validates SMTP_URL and RSG_MAIL_FROM like every other setting', () => {
    expect(loadConfig({ SMTP_URL: 'smtps://user:pw@mail.example:465' }).smtpUrl).toBe(
      'smtps://user:pw@mail.example:465',
    );
    expect(loadConfig({}).smtpUrl).toBeUndefined();
    expect(() => loadConfig({ SMTP_URL: 'http://mail.example' })).toThrow(ConfigError);
    expect(() => loadConfig({ RSG_MAIL_FROM: 'nobody' })).toThrow(/RSG_MAIL_FROM/);
  });

  it('shows a user their own mail, and only theirs, when no SMTP server is configured', async () => {
    const pool = gateway.runtime.gateway.pool;
    const ada = await signedInUser(gateway);
    const bob = await signedInUser(gateway);
    const settings = { pool, from: 'no-reply@localhost' };
    await sendMail(settings, {
      to: ada.email.toUpperCase(),
      subject: 'For Ada',
      text: 'Line one\n<b>not markup</b>',
    });
    await sendMail(settings, { to: bob.email, subject: 'For Bob', text: 'Secret of Bob' });
    const page = await ada.client.get('/portal/mail');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<summary>For Ada</summary>');
    expect(page.body).toContain('&#60;b&#62;not markup&#60;/b&#62;');
    expect(page.body).not.toContain('For Bob');
    expect(page.body).not.toContain('Secret of Bob');
    expect(page.body).toContain('<a href="/portal/mail" aria-current="page">My mail</a>');
    const bobs = await bob.client.get('/portal/mail');
    expect(bobs.body).toContain('For Bob');
    expect(bobs.body).not.toContain('For Ada');
    // Signed out: sign in first.
    const anonymous = await new PortalClient(gateway.app).get('/portal/mail');
    expect(anonymous.statusCode).toBe(303);
    expect(anonymous.headers.location).toMatch(/^\/portal\/signin/);
  });

  it('the page that says "You will get a mail" says where to read it when SMTP is off', async () => {
    const { client } = await signedInUser(gateway);
    const requested = await client.submit('/portal/products', '/portal/subscriptions', {
      productId: 'production-nzbn',
    });
    expect(requested.statusCode).toBe(201);
    expect(requested.body).toContain('You will get a mail when it is decided');
    expect(requested.body).toContain('read it under <a href="/portal/mail">My mail</a>');
    expect((await client.get('/portal/data-requests')).body).toContain('href="/portal/mail"');
    expect((await client.get('/portal/products/production-nzbn')).body).toContain('href="/portal/mail"');
    // With an SMTP server the mail goes to the mailbox: no hint.
    expect(mailHint({ mail: { smtpUrl: 'smtp://127.0.0.1:25' } } as PortalDeps).value).toBe('');
  });
});
