/**
 * A register's client made from its table of operations (each name to its `METHOD /path`): one method
 * per name, typed from the generated `paths`, and `paginate` for the operations that page.
 */
import type { Answer, Request, Transport } from './transport.ts';
import type {
  AnswerIn,
  AnswerOf,
  DefaultMediaOf,
  InputOf,
  ItemsOf,
  MediaOf,
  Methods,
  OperationOf,
  PagedNames,
} from './typing.ts';

/** How a register pages: its first page's number and where an answer keeps its list and its total. */
export interface Paging {
  /** The number of the first page: 0 in the business number register, 1 elsewhere. */
  firstPage: number;
  /** The answer's list, and its total when the answer gives one. */
  itemsOf(answer: Record<string, unknown>): unknown[];
  totalOf(answer: Record<string, unknown>): number | undefined;
}

/** The page-size a register takes at most (every register here: 100). */
export const MAX_PAGE_SIZE = 100;

type Input = {
  path?: Record<string, unknown>;
  query?: Record<string, unknown>;
  header?: Record<string, unknown>;
  body?: unknown;
  requestId?: string;
  signal?: AbortSignal;
  ifMatch?: string;
  accept?: string;
  timeoutMs?: number;
};

/**
 * The media type a call asks for when it names none: JSON when the operation answers it (or is not in
 * `mediaTypes`, the operations whose success is not JSON alone), else the operation's first (XML, a PDF).
 */
function acceptOf(operation: string, mediaTypes: Readonly<Record<string, readonly string[]>>): string {
  const types = mediaTypes[operation];
  return !types || types.includes('application/json') ? 'application/json' : types[0]!;
}

/** The transport's request for an operation `METHOD /path` and a method's input. */
export function requestOf(
  operation: string,
  input: Input = {},
  mediaTypes: Readonly<Record<string, readonly string[]>> = {},
): Request {
  const space = operation.indexOf(' ');
  return {
    method: operation.slice(0, space),
    path: operation.slice(space + 1),
    pathParameters: input.path,
    query: input.query,
    headers: { ...input.header, Accept: input.accept ?? acceptOf(operation, mediaTypes) },
    body: input.body,
    requestId: input.requestId,
    ifMatch: input.ifMatch,
    signal: input.signal,
    timeoutMs: input.timeoutMs,
  };
}

export interface RegisterBase<Paths, Table extends Record<string, string>> {
  /** The transport: its address, credentials and remembered ETags (`etagOf`). */
  readonly transport: Transport;
  /** The operations by name, each `METHOD /path`. */
  readonly operations: Table;
  /**
   * Sends an operation and answers the whole answer (status, headers, body), not the body alone; the
   * body typed by the media type asked for (`accept`), as a method's is.
   */
  send<
    Name extends keyof Table & string,
    M extends
      | MediaOf<OperationOf<Paths, Table[Name]>>
      | DefaultMediaOf<OperationOf<Paths, Table[Name]>> = DefaultMediaOf<OperationOf<Paths, Table[Name]>>,
  >(
    name: Name,
    input?: Omit<InputOf<OperationOf<Paths, Table[Name]>>, 'accept'> & { accept?: M },
  ): Promise<Answer<AnswerIn<OperationOf<Paths, Table[Name]>, M>>>;
  /**
   * Every item of a paged operation, page after page (as they are asked for): the register's own
   * `page` and `page-size` parameters, from its first page number, until its total or a short page.
   */
  paginate<Name extends PagedNames<Paths, Table> & string>(
    name: Name,
    input?: InputOf<OperationOf<Paths, Table[Name]>>,
  ): AsyncIterableIterator<ItemsOf<AnswerOf<OperationOf<Paths, Table[Name]>>>>;
}

export type RegisterClient<Paths, Table extends Record<string, string>> = Methods<Paths, Table> &
  RegisterBase<Paths, Table>;

export function registerClient<Paths, Table extends Record<string, string>>(
  transport: Transport,
  operations: Table,
  paging: Paging,
  mediaTypes: Readonly<Record<string, readonly string[]>> = {},
): RegisterClient<Paths, Table> {
  const send = (name: string, input?: Input) => {
    const operation = operations[name];
    if (!operation) throw new TypeError(`no operation named ${name}`);
    return transport.send(requestOf(operation, input, mediaTypes));
  };
  async function* paginate(name: string, input: Input = {}) {
    const size = Number(input.query?.['page-size'] ?? MAX_PAGE_SIZE);
    let page = Number(input.query?.page ?? paging.firstPage);
    let seen = 0;
    for (;;) {
      const { body } = await send(name, { ...input, query: { ...input.query, page, 'page-size': size } });
      const answer = (body ?? {}) as Record<string, unknown>;
      const items = paging.itemsOf(answer);
      yield* items;
      seen += items.length;
      const total = paging.totalOf(answer);
      if (items.length === 0 || items.length < size || (total !== undefined && seen >= total)) return;
      page++;
    }
  }
  const methods = Object.fromEntries(
    Object.keys(operations).map((name) => [name, async (input?: Input) => (await send(name, input)).body]),
  );
  return { ...methods, transport, operations, send, paginate } as unknown as RegisterClient<Paths, Table>;
}

const firstArray = (answer: Record<string, unknown>, names: string[]): unknown[] => {
  for (const name of names) if (Array.isArray(answer[name])) return answer[name] as unknown[];
  return [];
};
const firstNumber = (answer: Record<string, unknown>, names: string[]): number | undefined => {
  for (const name of names) if (typeof answer[name] === 'number') return answer[name] as number;
  return undefined;
};

/** Paging whose lists and totals are under one of these names. */
export const pagingOf = (firstPage: number, lists: string[], totals: string[]): Paging => ({
  firstPage,
  itemsOf: (answer) => firstArray(answer, lists),
  totalOf: (answer) => firstNumber(answer, totals),
});
