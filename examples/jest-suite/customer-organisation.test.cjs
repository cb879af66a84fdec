// A write to the secured interests register (the customer organisation's email, PPSR_45), seen by this
// worker's sandbox alone, and gone after a reset.
const { sandbox } = require('register-services-gateway/testing/jest');
const { otherSandboxes } = require('./others.cjs');

const EMAIL = 'accounts-a@example.test';

const organisation = async (target) => {
  const response = await fetch(`${target.registers.ppsr}/customer-organisation`, {
    headers: { 'Ocp-Apim-Subscription-Key': target.keys.ppsr },
  });
  expect(response.status).toBe(200);
  return response.json();
};

beforeAll(() => sandbox().snapshot('file-start'));
afterAll(() => sandbox().reset());
beforeEach(() => sandbox().restore('file-start'));

test('a write is seen by this worker only', async () => {
  const response = await fetch(`${sandbox().registers.ppsr}/customer-organisation`, {
    method: 'PUT',
    headers: { 'Ocp-Apim-Subscription-Key': sandbox().keys.ppsr, 'Content-Type': 'application/json' },
    body: JSON.stringify({ email: EMAIL }),
  });
  expect(response.status).toBe(200);
  expect((await organisation(sandbox())).email).toBe(EMAIL);
  for (const other of otherSandboxes()) expect((await organisation(other)).email).not.toBe(EMAIL);
});

test('a restore takes the write back', async () => {
  expect((await organisation(sandbox())).email).not.toBe(EMAIL);
});

test('a reset takes a write back', async () => {
  await fetch(`${sandbox().registers.ppsr}/customer-organisation`, {
    method: 'PUT',
    headers: { 'Ocp-Apim-Subscription-Key': sandbox().keys.ppsr, 'Content-Type': 'application/json' },
    body: JSON.stringify({ email: EMAIL }),
  });
  await sandbox().reset();
  expect((await organisation(sandbox())).email).toBeNull();
});
