// A test user acting for a business (an authority over it, and an OAuth token from the sandbox's
// sign-in) updates it in the business number register; the update is in this worker's sandbox only.
const { sandbox } = require('register-services-gateway/testing/jest');
const { otherSandboxes } = require('./others.cjs');

// A fixed test case a user acting for it may update (docs/guide/business-number-register.md).
const UPDATABLE = '9429000003025';
const ABN = '51824753556';

const abn = async (target) => {
  const response = await fetch(`${target.registers.nzbn}/entities/${UPDATABLE}`, {
    headers: { 'Ocp-Apim-Subscription-Key': target.keys.nzbn },
  });
  expect(response.status).toBe(200);
  return (await response.json()).australianBusinessNumber;
};

afterAll(() => sandbox().reset());

test('a user acting for the business updates it, in this worker only', async () => {
  const { token } = await sandbox().user({
    authorities: [{ service: 'nzbn', kind: 'entity', id: UPDATABLE }],
  });
  const response = await fetch(
    `${sandbox().registers.nzbn}/entities/${UPDATABLE}/action-update-australian-business-numbers`,
    {
      method: 'POST',
      headers: {
        'Ocp-Apim-Subscription-Key': sandbox().keys.nzbn,
        Authorization: `Bearer ${token}`,
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({ australianBusinessNumber: ABN }),
    },
  );
  expect(response.status).toBe(200);
  expect(await abn(sandbox())).toBe(ABN);
  for (const other of otherSandboxes()) expect(await abn(other)).not.toBe(ABN);
});
