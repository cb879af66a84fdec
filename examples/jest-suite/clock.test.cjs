// The sandbox clock and a write of this file's own, in this worker's sandbox alone; a reset brings both
// back.
const { sandbox } = require('register-services-gateway/testing/jest');
const { otherSandboxes } = require('./others.cjs');

const EMAIL = 'accounts-b@example.test';
const LATER = '2031-07-01T09:00:00.000Z';

const organisation = async (target) => {
  const response = await fetch(`${target.registers.ppsr}/customer-organisation`, {
    headers: { 'Ocp-Apim-Subscription-Key': target.keys.ppsr },
  });
  expect(response.status).toBe(200);
  return response.json();
};

afterAll(() => sandbox().reset());

test('the clock moves in this worker only', async () => {
  const start = await sandbox().clock.read();
  expect(start.mode).toBe('virtual');
  // The virtual clock runs on from where it is set.
  const set = await sandbox().clock.set(LATER);
  expect(set.now.getTime() - Date.parse(LATER)).toBeGreaterThanOrEqual(0);
  expect(set.now.getTime() - Date.parse(LATER)).toBeLessThan(60_000);
  const advanced = await sandbox().clock.advance('1d');
  expect(advanced.now.getTime()).toBeGreaterThanOrEqual(Date.parse(LATER) + 86_400_000);
  for (const other of otherSandboxes()) {
    const response = await fetch(`${other.url}/sandbox/admin/clock`, {
      headers: { 'Ocp-Apim-Subscription-Key': other.keys.ppsr },
    });
    expect(Date.parse((await response.json()).now)).toBeLessThan(Date.parse(LATER));
  }
});

test('a write is seen by this worker only, until a reset', async () => {
  const response = await fetch(`${sandbox().registers.ppsr}/customer-organisation`, {
    method: 'PUT',
    headers: { 'Ocp-Apim-Subscription-Key': sandbox().keys.ppsr, 'Content-Type': 'application/json' },
    body: JSON.stringify({ email: EMAIL }),
  });
  expect(response.status).toBe(200);
  expect((await organisation(sandbox())).email).toBe(EMAIL);
  for (const other of otherSandboxes()) expect((await organisation(other)).email).not.toBe(EMAIL);

  await sandbox().reset();
  expect((await organisation(sandbox())).email).toBeNull();
  expect((await sandbox().clock.read()).now.getTime()).toBeLessThan(Date.parse(LATER));
});

test('an unknown snapshot is refused with the route’s answer', async () => {
  await expect(sandbox().restore('never-kept')).rejects.toMatchObject({ status: 404 });
});
