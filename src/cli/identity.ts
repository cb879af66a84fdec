import { readFileSync } from 'node:fs';
import type { Config } from '../config.ts';
import type { RegisterObject } from '../identity/domain/authorities.ts';
import type { GrantType } from '../identity/domain/clients.ts';
import type { MembershipRole } from '../identity/domain/organisations.ts';
import { decideAuthority, grantAuthority } from '../identity/operations/authorities.ts';
import { registerClient } from '../identity/operations/clients.ts';
import { addOrganisation } from '../identity/operations/organisations.ts';
import { rotateSigningKey } from '../identity/operations/signing-keys.ts';
import { setPassword } from '../identity/operations/users.ts';
import { listAuthorities, revokeAuthority } from '../identity/store/authorities.ts';
import { addMember } from '../identity/store/memberships.ts';
import { findOrganisation } from '../identity/store/organisations.ts';
import { pendingRegisterAuthorities } from '../identity/store/register-authorities.ts';
import type { Environment } from '../services/contract.ts';
import { optional, parse, print, required, UsageError, userId, withGateway } from './args.ts';

/** Operator commands for identity: passwords, authorities, organisations and OAuth. */

function environmentOf(values: Record<string, unknown>): Environment {
  const environment = values.environment ?? 'sandbox';
  if (environment !== 'sandbox' && environment !== 'production')
    throw new UsageError('--environment must be sandbox or production');
  return environment;
}

function objectOf(values: Record<string, string | boolean | undefined>): RegisterObject {
  return {
    environment: environmentOf(values),
    service: required(values, 'service'),
    kind: required(values, 'kind'),
    id: required(values, 'id'),
  };
}

/** A password from `--password-file F` (`-` for standard input), never from the command line. */
function readPassword(values: Record<string, string | boolean | undefined>): string {
  const file = required(values, 'password-file');
  return readFileSync(file === '-' ? 0 : file, 'utf8')
    .split('\n')[0]!
    .replace(/\r$/, '');
}

const OBJECT_OPTIONS = {
  email: { type: 'string' },
  organisation: { type: 'string' },
  environment: { type: 'string' },
  service: { type: 'string' },
  kind: { type: 'string' },
  id: { type: 'string' },
  authority: { type: 'string' },
  decision: { type: 'string' },
  reason: { type: 'string' },
  by: { type: 'string' },
  'password-file': { type: 'string' },
  json: { type: 'boolean' },
} as const;

export async function identityUsersCommand(config: Config, args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { ...OBJECT_OPTIONS });
  const json = values.json === true;
  switch (positionals[0]) {
    case 'set-password': {
      const email = required(values, 'email');
      const password = readPassword(values);
      await withGateway(config, async (pool) => setPassword(pool, await userId(pool, email), password));
      print({ email }, json, () => `password set for ${email}`);
      return 0;
    }
    case 'grant-authority': {
      const object = objectOf(values);
      const email = optional(values, 'email');
      const organisation = optional(values, 'organisation');
      if (!email === !organisation) throw new UsageError('name the holder with --email or --organisation');
      const authority = await withGateway(config, async (pool) => {
        if (email) return grantAuthority(pool, object, { userId: await userId(pool, email) });
        const org = await findOrganisation(pool, object.environment, organisation!);
        if (!org) throw new UsageError(`no ${object.environment} organisation "${organisation}"`);
        return grantAuthority(pool, object, { organisationId: org.id });
      });
      print(
        authority,
        json,
        () =>
          `${authority.holderName} holds authority over ${object.service} ${object.kind} ${object.id} (${object.environment}) — ${authority.id}`,
      );
      return 0;
    }
    case 'revoke-authority': {
      const object = objectOf(values);
      const id = required(values, 'authority');
      const revoked = await withGateway(config, (pool) => revokeAuthority(pool, object, id));
      if (!revoked) throw new UsageError(`no current authority ${id} over that object`);
      print({ revoked: id }, json, () => `authority ${id} revoked`);
      return 0;
    }
    case 'authorities': {
      const object = objectOf(values);
      const list = await withGateway(config, (pool) => listAuthorities(pool, object));
      print(list, json, () =>
        list.map((a) => `${a.id}\t${a.holderName}\t${a.role}\t${a.grantedAt.toISOString()}`).join('\n'),
      );
      return 0;
    }
    case 'pending-authorities': {
      const list = await withGateway(config, (pool) => pendingRegisterAuthorities(pool, 200));
      print(list, json, () =>
        list
          .map(
            (a) =>
              `${a.id}\t${a.environment} ${a.service} ${a.objectKind} ${a.objectId}\t${a.organisationIdentifier ?? a.userEmail}\t${a.approvalType}`,
          )
          .join('\n'),
      );
      return 0;
    }
    case 'decide-authority':
      return decideAuthorityCommand(config, values, json);
    default:
      throw new UsageError(
        'users add | list | set-password | grant-authority | revoke-authority | authorities | pending-authorities | decide-authority',
      );
  }
}

/** `rsg users decide-authority --authority ID --decision accept|reject [--reason TEXT] [--by EMAIL]`. */
async function decideAuthorityCommand(
  config: Config,
  values: Record<string, string | boolean | undefined>,
  json: boolean,
): Promise<number> {
  const id = required(values, 'authority');
  const decision = { accept: 'ACCEPTED', reject: 'REJECTED' } as const;
  const chosen = decision[required(values, 'decision') as keyof typeof decision];
  if (!chosen) throw new UsageError('--decision must be accept or reject');
  const by = optional(values, 'by');
  const decided = await withGateway(config, async (pool) =>
    decideAuthority(pool, id, chosen, {
      by: by ? await userId(pool, by) : null,
      reason: optional(values, 'reason'),
    }),
  );
  if (!decided) throw new UsageError(`no request for authority ${id} is waiting`);
  print({ authority: id, status: chosen }, json, () => `authority ${id} ${chosen.toLowerCase()}`);
  return 0;
}

export async function organisationsCommand(config: Config, args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    environment: { type: 'string' },
    identifier: { type: 'string' },
    name: { type: 'string' },
    email: { type: 'string' },
    role: { type: 'string' },
    json: { type: 'boolean' },
  });
  const json = values.json === true;
  const environment = environmentOf(values);
  if (positionals[0] === 'add') {
    const identifier = required(values, 'identifier');
    const organisation = await withGateway(config, (pool) =>
      addOrganisation(pool, { environment, identifier, name: optional(values, 'name') ?? identifier }),
    );
    print(
      organisation,
      json,
      () => `added ${environment} organisation ${organisation.identifier} (${organisation.id})`,
    );
    return 0;
  }
  if (positionals[0] === 'add-member') {
    const identifier = required(values, 'identifier');
    const email = required(values, 'email');
    const role = (optional(values, 'role') ?? 'member') as MembershipRole;
    if (!['owner', 'admin', 'member'].includes(role))
      throw new UsageError('--role must be owner, admin or member');
    await withGateway(config, async (pool) => {
      const organisation = await findOrganisation(pool, environment, identifier);
      if (!organisation) throw new UsageError(`no ${environment} organisation "${identifier}"`);
      await addMember(pool, organisation.id, await userId(pool, email), role);
    });
    print(
      { identifier, email, role },
      json,
      () => `${email} is a${role === 'admin' ? 'n' : ''} ${role} of ${identifier}`,
    );
    return 0;
  }
  throw new UsageError(
    'organisations add --identifier ID [--name N] [--environment E] | add-member --identifier ID --email E [--role R]',
  );
}

export async function oauthCommand(config: Config, args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    user: { type: 'string' },
    name: { type: 'string' },
    environment: { type: 'string' },
    grant: { type: 'string' },
    'redirect-uri': { type: 'string' },
    public: { type: 'boolean' },
    json: { type: 'boolean' },
  });
  const json = values.json === true;
  if (positionals[0] === 'rotate-key') {
    const kid = await withGateway(config, rotateSigningKey);
    print(
      { kid },
      json,
      () => `new signing key ${kid}; the previous key stays published until its tokens expire`,
    );
    return 0;
  }
  if (positionals[0] === 'clients' && positionals[1] === 'create') {
    const email = required(values, 'user');
    const grants = (optional(values, 'grant') ?? 'client_credentials')
      .split(',')
      .map((g) => g.trim()) as GrantType[];
    const redirectUris = (optional(values, 'redirect-uri') ?? '')
      .split(',')
      .map((u) => u.trim())
      .filter(Boolean);
    const created = await withGateway(config, async (pool) =>
      registerClient(pool, {
        ownerUserId: await userId(pool, email),
        name: optional(values, 'name') ?? 'Client',
        environment: environmentOf(values),
        grantTypes: grants,
        redirectUris,
        public: values.public === true,
      }),
    );
    const out = { clientId: created.client.clientId, clientSecret: created.clientSecret ?? null };
    print(
      out,
      json,
      () =>
        `client ${out.clientId}${out.clientSecret ? `\nsecret (shown once): ${out.clientSecret}` : ' (public: use PKCE)'}`,
    );
    return 0;
  }
  throw new UsageError(
    'oauth rotate-key | oauth clients create --user EMAIL [--name N] [--environment E] [--grant G,…] [--redirect-uri U,…] [--public]',
  );
}
