/**
 * `rsg import <register> FILE…` and `rsg export <register> [--output FILE]` for a register that gives a
 * `TransferRegister`: each register contributes the two commands through its service definition (the
 * CLI tells the commands of one name apart by their subject, the register's name). The types here match
 * the service contract's `ServiceCommand` (platform code does not import the services' contract).
 */
import { existsSync } from 'node:fs';
import { openDatabase } from '../db/pool.ts';
import { exportRegister } from './export.ts';
import { DEFAULT_MAX_ERRORS, describeProblem, ImportRefused, importFiles } from './import.ts';
import { progress } from './progress.ts';
import type { OptionValues, TransferOption, TransferRegister } from './register.ts';

type Environment = 'sandbox' | 'production';

interface Context {
  parse(
    args: string[],
    options: Record<string, { type: 'string' | 'boolean' }>,
  ): { values: Record<string, string | boolean | undefined>; positionals: string[] };
  usageError(message: string): Error;
  withEnvironmentDatabase<T>(environment: Environment, work: (url: string) => Promise<T>): Promise<T>;
}

export interface TransferCommand {
  name: string;
  subject: string;
  usage: string;
  run(context: Context, args: string[]): Promise<number>;
}

const typesOf = (options: Readonly<Record<string, TransferOption>> = {}) =>
  Object.fromEntries(Object.entries(options).map(([name, option]) => [name, { type: option.type }]));
const usagesOf = (options: Readonly<Record<string, TransferOption>> = {}) =>
  Object.values(options)
    .map((option) => ` ${option.usage}`)
    .join('');

function environmentOf(context: Context, value: string | boolean | undefined): Environment {
  const environment = value ?? 'production';
  if (environment !== 'sandbox' && environment !== 'production') {
    throw context.usageError('--environment must be sandbox or production');
  }
  return environment;
}

function wholeNumber(
  context: Context,
  name: string,
  value: string | boolean | undefined,
): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (typeof value !== 'string' || !/^[0-9]+$/.test(value) || number < 1 || number > 100_000_000) {
    throw context.usageError(`--${name} must be a whole number from 1 to 100000000`);
  }
  return number;
}

/** The register's `import` and `export` commands. */
export function transferCommands(register: TransferRegister): TransferCommand[] {
  return [importCommand(register), exportCommand(register)];
}

function importCommand(register: TransferRegister): TransferCommand {
  const usage = `import ${register.name} FILE… [--environment sandbox|production] [--batch N [--resume]] [--emit-changes] [--max-errors N]${usagesOf(register.importOptions)}`;
  return {
    name: 'import',
    subject: register.name,
    usage: `${usage}\n                                 ${register.records}, NDJSON (gzip or not), all or nothing unless --batch`,
    async run(context, args) {
      const { values, positionals } = context.parse(args, {
        environment: { type: 'string' },
        batch: { type: 'string' },
        resume: { type: 'boolean' },
        'emit-changes': { type: 'boolean' },
        'max-errors': { type: 'string' },
        ...typesOf(register.importOptions),
      });
      const [, ...files] = positionals;
      if (files.length === 0) throw context.usageError(usage);
      const environment = environmentOf(context, values.environment);
      const batch = wholeNumber(context, 'batch', values.batch);
      const maxErrors = wholeNumber(context, 'max-errors', values['max-errors']) ?? DEFAULT_MAX_ERRORS;
      if (values.resume && !batch) throw context.usageError('--resume goes with --batch N');
      const missing = files.find((file) => !existsSync(file));
      if (missing) {
        process.stderr.write(`rsg: no file ${missing}\n`);
        return 2;
      }
      const refused = register.refuseFiles?.(files, values);
      if (refused) {
        process.stderr.write(`rsg: ${refused}\n`);
        return 2;
      }
      return context.withEnvironmentDatabase(environment, (url) =>
        runImport(url, register, files, {
          environment,
          batch,
          maxErrors,
          resume: values.resume === true,
          emitChanges: values['emit-changes'] === true,
          options: values,
        }),
      );
    },
  };
}

async function runImport(
  url: string,
  register: TransferRegister,
  files: string[],
  options: {
    environment: Environment;
    batch: number | undefined;
    maxErrors: number;
    resume: boolean;
    emitChanges: boolean;
    options: OptionValues;
  },
): Promise<number> {
  const database = openDatabase(url, { max: 2, name: options.environment });
  const say = (text: string) => process.stderr.write(`${text}\n`);
  say(
    `importing ${register.name} into ${options.environment}${options.batch ? `, committing every ${options.batch} records` : ', all or nothing'}`,
  );
  try {
    const result = await importFiles(database, register, {
      ...options,
      files,
      progress: progress(`importing ${register.name}`),
      say,
    });
    const n = (value: number) => value.toLocaleString('en-NZ');
    process.stdout.write(
      `${n(result.records)} records: ${n(result.inserted)} new, ${n(result.updated)} updated, ${n(result.unchanged)} unchanged\n`,
    );
    for (const note of result.notes) say(note);
    return 0;
  } catch (error) {
    if (!(error instanceof ImportRefused)) throw error;
    for (const problem of error.problems) process.stderr.write(`${describeProblem(problem)}\n`);
    if (error.total > error.problems.length) {
      process.stderr.write(`… and ${error.total - error.problems.length} more\n`);
    }
    process.stderr.write(`rsg: ${error.message}\n`);
    return 1;
  } finally {
    await database.close();
  }
}

/** The `export` command alone, for a register whose import is its own (rental bonds). */
export function exportCommand(
  register: Pick<TransferRegister, 'name' | 'records' | 'exportOptions' | 'exportAll'>,
): TransferCommand {
  const usage = `export ${register.name} [--output FILE] [--environment sandbox|production]${usagesOf(register.exportOptions)}`;
  return {
    name: 'export',
    subject: register.name,
    usage: `${usage}\n                                 ${register.records} (gzip when FILE ends in .gz)`,
    async run(context, args) {
      const { values, positionals } = context.parse(args, {
        environment: { type: 'string' },
        output: { type: 'string' },
        ...typesOf(register.exportOptions),
      });
      if (positionals.length !== 1) throw context.usageError(usage);
      const environment = environmentOf(context, values.environment);
      const file = typeof values.output === 'string' ? values.output : undefined;
      return context.withEnvironmentDatabase(environment, async (url) => {
        const database = openDatabase(url, { max: 2, name: environment });
        try {
          const count = await exportRegister(database, register, file, values, environment);
          if (file) process.stderr.write(`${count.toLocaleString('en-NZ')} records written to ${file}\n`);
          return 0;
        } finally {
          await database.close();
        }
      });
    },
  };
}
