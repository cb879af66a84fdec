import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands.ts';
import { ENVIRONMENT_PREFIX } from '../../src/services/contract.ts';
import { SERVICES } from '../../src/services/registry.ts';
import { OpenApi } from '../support/openapi.ts';
import { type TestGateway, testGateway } from '../support/runtime.ts';

/**
 * Every command and path the user documentation names is real: README.md, docs/*.md and docs/guide/*.md.
 *
 * - a relative Markdown link (`[text](path)`, images and `[label]: path` definitions too) resolves to an
 *   existing file or folder;
 * - `npm run <script>` names a script of package.json (anywhere in the text);
 * - `rsg <command> [<subcommand>]` at the start of a command in code (inline or a fenced block) names a
 *   command of the CLI's table (src/cli/commands.ts), and a lower-case word after it appears in that
 *   command's usage lines;
 * - a URL in a curl command under a register's base path (`/sandbox/<service path>/…` or
 *   `/gateway/<service path>/…`) is an operation of that register's OpenAPI document for curl's method
 *   (path parameters match any value; the query string is ignored), the document itself, or a public
 *   route the gateway answers without a key (the offers register's online register and document files).
 *
 * A failure names the file and line of every broken reference.
 */
const ROOT = join(import.meta.dirname, '..', '..');

function userDocs(): string[] {
  const inFolder = (folder: string) =>
    existsSync(join(ROOT, folder))
      ? readdirSync(join(ROOT, folder))
          .filter((name) => name.endsWith('.md'))
          .map((name) => `${folder}/${name}`)
      : [];
  return ['README.md', ...inFolder('docs'), ...inFolder('docs/guide')].sort();
}

/** A piece of a document: prose, an inline code span, or a line of a fenced block (continuations joined). */
interface Piece {
  file: string;
  line: number;
  text: string;
  kind: 'prose' | 'code';
}

function piecesOf(file: string): Piece[] {
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
  const pieces: Piece[] = [];
  let fence: string | undefined;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    const marker = /^\s*(```+|~~~+)/.exec(line)?.[1];
    if (marker && (!fence || marker.startsWith(fence))) {
      fence = fence ? undefined : marker;
      continue;
    }
    if (fence) {
      // A shell line continued with a backslash is one command.
      let text = line;
      const start = index + 1;
      while (text.endsWith('\\') && index + 1 < lines.length) {
        index++;
        text = `${text.slice(0, -1)} ${lines[index]!}`;
      }
      pieces.push({ file, line: start, text, kind: 'code' });
      continue;
    }
    // Inline code spans; what is left is prose.
    const prose = line.replace(/(`+)(.+?)\1/g, (_, _ticks: string, code: string) => {
      pieces.push({ file, line: index + 1, text: code.replace(/\\\|/g, '|'), kind: 'code' });
      return ' ';
    });
    pieces.push({ file, line: index + 1, text: prose, kind: 'prose' });
  }
  return pieces;
}

const docs = userDocs();
const pieces = docs.flatMap(piecesOf);
const at = (piece: Piece) => `${piece.file}:${piece.line}`;

describe('the user documentation', () => {
  it('covers README.md and the docs folders', () => {
    expect(docs).toEqual(expect.arrayContaining(['README.md', 'docs/operations.md']));
  });

  it('links only to files that exist', () => {
    const broken: string[] = [];
    for (const piece of pieces.filter((p) => p.kind === 'prose')) {
      const inline = piece.text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g);
      const definitions = piece.text.matchAll(/^\s{0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?/g);
      for (const match of [...inline, ...definitions]) {
        const target = match[1]!;
        if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue;
        const path = decodeURIComponent(target.split('#')[0]!.split('?')[0]!);
        const resolved = path.startsWith('/') ? join(ROOT, path) : join(ROOT, dirname(piece.file), path);
        if (!existsSync(resolved)) {
          broken.push(
            `${at(piece)}: link "${target}" resolves to ${relative(ROOT, resolved)}, which does not exist`,
          );
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('names only scripts of package.json after npm run', () => {
    const scripts = Object.keys(
      (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> })
        .scripts,
    );
    const broken: string[] = [];
    for (const piece of pieces) {
      for (const match of piece.text.matchAll(/\bnpm run(?:-script)? +([\w:.-]+)/g)) {
        if (!scripts.includes(match[1]!)) {
          broken.push(`${at(piece)}: "npm run ${match[1]}" names no script of package.json`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('names only commands of the rsg CLI', () => {
    const usage = new Map(COMMANDS.map((command) => [command.name, command.usage]));
    const broken: string[] = [];
    for (const piece of pieces.filter((p) => p.kind === 'code')) {
      // `rsg X`, or `npm run rsg -- X`, where X is a word (not a placeholder such as <command>), at the
      // start of a command: the start of the line or span (after a `$` prompt), after a shell operator,
      // a bracket or a quote, or after npx or sudo. Prose in a block ("the rsg command") is not one.
      const text = piece.text.replace(/\bnpm run rsg --/g, 'rsg');
      for (const match of text.matchAll(
        /(?:^\s*(?:\$\s+)?|[;&|(`'"]\s*|\b(?:npx|sudo)\s+)rsg +([a-z][\w-]*)(?: +([a-z][\w-]*))?/g,
      )) {
        const [, command, sub] = match as unknown as [string, string, string | undefined];
        if (command === 'help') continue;
        const lines = usage.get(command);
        if (lines === undefined) {
          broken.push(`${at(piece)}: "rsg ${command}" is not a command of the CLI (src/cli/commands.ts)`);
        } else if (sub && !new RegExp(`(^|[\\s|])${sub}($|[\\s|])`, 'm').test(lines)) {
          broken.push(
            `${at(piece)}: "rsg ${command} ${sub}": "${sub}" is not in the usage of "rsg ${command}"`,
          );
        }
      }
    }
    expect(broken).toEqual([]);
  });

  describe('curl examples', () => {
    let gateway: TestGateway;
    const documents = new Map<string, OpenApi>();

    beforeAll(async () => {
      gateway = await testGateway();
      for (const service of SERVICES) {
        documents.set(
          service.id,
          await OpenApi.fetch(gateway.app, `${ENVIRONMENT_PREFIX.sandbox}${service.path}`),
        );
      }
    });
    afterAll(async () => {
      await gateway?.close();
    });

    /** curl's method: -X/--request, else -I (HEAD), -T (PUT), a body (POST), else GET. */
    const methodOf = (command: string): string => {
      const explicit = /(?:^|\s)(?:-X\s*|--request[\s=]+)['"]?([A-Za-z]+)/.exec(command)?.[1];
      if (explicit) return explicit.toUpperCase();
      if (/(?:^|\s)(?:-I|--head)(?:\s|$)/.test(command)) return 'HEAD';
      if (/(?:^|\s)(?:-T|--upload-file)\s/.test(command)) return 'PUT';
      if (/(?:^|\s)(?:-d|-F|--data[\w-]*|--form|--json)[\s=@'"]/.test(command)) return 'POST';
      return 'GET';
    };

    it('call operations of the registers’ OpenAPI documents', async () => {
      const broken: string[] = [];
      const commands = pieces.filter((p) => p.kind === 'code' && /(?:^|[\s`(|;&$])curl\s/.test(p.text));
      expect(commands.length).toBeGreaterThan(0);
      for (const piece of commands) {
        // Each curl of the line up to a shell operator, with the URLs that follow it.
        for (const part of piece.text.split(/(?=\bcurl\s)/).filter((text) => text.startsWith('curl'))) {
          const command = part.split(/\s(?:\|\|?|&&)\s|;(?:\s|$)/)[0]!;
          const method = methodOf(command);
          for (const match of command.matchAll(/https?:\/\/[^\s"'<>`]+/g)) {
            let url: URL;
            try {
              url = new URL(match[0]);
            } catch {
              continue; // a placeholder such as http://<host>/…, not an address
            }
            // Only addresses of this gateway are calls: a published URL (an OAuth scope such as
            // https://api.business.govt.nz/sandbox/.default) is a value the call sends.
            if (!['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)) continue;
            const found = /^\/(sandbox|gateway)(\/.*)$/.exec(url.pathname);
            if (!found) continue;
            if (url.pathname.startsWith('/sandbox/admin/')) {
              // The operators' routes (an operator's sandbox key): one that exists refuses a call
              // without a key (401); a path nobody serves is a 404.
              const probe = await gateway.app.inject({ method: method as 'GET', url: url.pathname });
              if (probe.statusCode !== 401)
                broken.push(`${at(piece)}: ${method} ${url.pathname} is no admin route`);
              continue;
            }
            const service = SERVICES.find((s) => found[2] === s.path || found[2]!.startsWith(`${s.path}/`));
            if (!service) {
              broken.push(`${at(piece)}: ${url.pathname} is under no register's base path`);
              continue;
            }
            const path = found[2]!.slice(service.path.length);
            if (path === '' || path === '/' || path === '/openapi.json') continue;
            const openApi = documents.get(service.id)!;
            const template = openApi.template(path);
            const operations = template ? openApi.document.paths[template]! : {};
            const wanted = method === 'HEAD' ? 'get' : method.toLowerCase();
            if (template && wanted in operations) continue;
            if (!template && (method === 'GET' || method === 'HEAD')) {
              // Not in the document: a public route answers without a key; anything else is the
              // gateway's refusal in API Management's body.
              const probe = await gateway.app.inject({
                method: 'GET',
                url: `${ENVIRONMENT_PREFIX.sandbox}${service.path}${path}${url.search}`,
              });
              if (!/^\{"statusCode":\d+,"message"/.test(probe.body)) continue;
            }
            broken.push(
              template
                ? `${at(piece)}: ${method} ${url.pathname}: ${template} has no ${method} operation in the ${service.id} OpenAPI document`
                : `${at(piece)}: ${method} ${url.pathname} matches no operation of the ${service.id} OpenAPI document`,
            );
          }
        }
      }
      expect(broken).toEqual([]);
    });
  });
});
