import type { Config } from '../config.ts';
import { addUser } from '../identity/operations/users.ts';
import { listUsers } from '../identity/store/users.ts';
import { optional, parse, print, required, UsageError, withGateway } from './args.ts';
import { identityUsersCommand } from './identity.ts';

/** `rsg users`: add and list here; passwords and authorities in identity.ts. */
export async function usersCommand(config: Config, args: string[]): Promise<number> {
  return args[0] === 'add' || args[0] === 'list'
    ? addOrListUsers(config, args)
    : identityUsersCommand(config, args);
}

async function addOrListUsers(config: Config, args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    email: { type: 'string' },
    name: { type: 'string' },
    operator: { type: 'boolean' },
    json: { type: 'boolean' },
  });
  const json = values.json === true;
  if (positionals[0] === 'add') {
    const email = required(values, 'email');
    const user = await withGateway(config, (pool) =>
      addUser(pool, { email, name: optional(values, 'name'), isOperator: values.operator === true }),
    );
    print(user, json, () => `added ${user.email} (${user.id})${user.isOperator ? ' as an operator' : ''}`);
    return 0;
  }
  if (positionals[0] === 'list') {
    const users = await withGateway(config, listUsers);
    print(users, json, () =>
      users.map((u) => `${u.email}\t${u.name}\t${u.isOperator ? 'operator' : 'user'}`).join('\n'),
    );
    return 0;
  }
  throw new UsageError('users add --email E [--name N] [--operator] | users list');
}
