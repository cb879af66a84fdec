/**
 * A user registered with the office (ours: the office's own customer registration is not published): a
 * user holding identity's authority of kind `registered-user` over the object `iponz` in the environment.
 * Operators grant it (`rsg users grant-authority --service iponz --kind registered-user --id iponz`); the sandbox seed grants it to the operators'
 * sandbox users. Fee-bearing operations (renewals; applications) need it.
 */
export const REGISTERED_USER = { kind: 'registered-user', objectId: 'iponz' } as const;
