/**
 * The type machinery that turns a register's generated `paths` (openapi-typescript) and its table of
 * operation names into typed methods: what a call takes (path, query and header parameters, the body)
 * and what a success answers. Nothing here exists at run time.
 */

/** `METHOD /path`, as the generated `paths` spell the path. */
export type OperationKey = `${'GET' | 'PUT' | 'POST' | 'DELETE' | 'PATCH'} /${string}`;

/** The generated operation object that `key` names in `Paths`. */
export type OperationOf<Paths, Key> = Key extends `${infer Method} ${infer Path}`
  ? Path extends keyof Paths
    ? Lowercase<Method> extends keyof Paths[Path]
      ? NonNullable<Paths[Path][Lowercase<Method>]>
      : never
    : never
  : never;

/** The keys of `Paths` that are real operations: a table entry outside the document fails `tsc`. */
export type KnownOperation<Paths> = {
  [Path in keyof Paths & string]: {
    [Method in keyof Paths[Path] & ('get' | 'put' | 'post' | 'delete' | 'patch')]: [
      NonNullable<Paths[Path][Method]>,
    ] extends [never]
      ? never
      : `${Uppercase<Method>} ${Path}`;
  }[keyof Paths[Path] & ('get' | 'put' | 'post' | 'delete' | 'patch')];
}[keyof Paths & string];

type Parameters_<Op> = Op extends { parameters: infer P } ? P : Record<string, never>;

/** One part of the parameters: required when the document requires one of its members, absent when none. */
type Part<P, K extends string, As extends string = K> = K extends keyof P
  ? [Exclude<P[K], undefined>] extends [never]
    ? unknown
    : undefined extends P[K]
      ? { [_ in As]?: Exclude<P[K], undefined> }
      : { [_ in As]: P[K] }
  : unknown;

/** Request headers are all optional: the client sends the ones it manages itself (request id, ETags). */
type HeaderPart<P> = 'header' extends keyof P
  ? [Exclude<P['header' & keyof P], undefined>] extends [never]
    ? unknown
    : { header?: Partial<Exclude<P['header' & keyof P], undefined>> }
  : unknown;

type BodyOf<Op> = Op extends { requestBody?: infer B }
  ? [Exclude<B, undefined>] extends [never]
    ? unknown
    : Exclude<B, undefined> extends { content: infer C }
      ? 'application/json' extends keyof C
        ? undefined extends B
          ? { body?: C['application/json'] }
          : { body: C['application/json'] }
        : 'multipart/form-data' extends keyof C
          ? { body: FormData }
          : { body: string }
      : unknown
  : unknown;

/** What every call may also say. */
export interface CallOptions {
  /**
   * The request id (`api-business-govt-nz-Request-Id`): a write that carries one may be repeated safely,
   * so the client retries it; a write without one is never retried.
   */
  requestId?: string;
  /** Cancels the call (and any waiting between retries). */
  signal?: AbortSignal;
  /** The media type to ask for (`Accept`), when the operation answers several (CSV, XML); JSON by default. */
  accept?: string;
  /** The ETag a write must match (`If-Match`); the one the client remembers for the resource otherwise. */
  ifMatch?: string;
}

type Flatten<T> = { [K in keyof T]: T[K] };

/** What a call of the operation takes. */
export type InputOf<Op> = Flatten<
  Part<Parameters_<Op>, 'path'> & Part<Parameters_<Op>, 'query'> & HeaderPart<Parameters_<Op>> & BodyOf<Op>
> &
  CallOptions;

type SuccessStatus = 200 | 201 | 202 | 203 | 204 | 206 | '200' | '201' | '202' | '204';

type ContentOf<R> = R extends { content: infer C }
  ? 'application/json' extends keyof C
    ? C['application/json']
    : keyof C extends never
      ? undefined
      : Extract<keyof C, `text/${string}` | `${string}/xml`> extends never
        ? Uint8Array
        : string
  : undefined;

/** What a success of the operation answers: its JSON, the text of an XML or CSV answer, or the bytes. */
export type AnswerOf<Op> = Op extends { responses: infer R }
  ? { [S in keyof R]: S extends SuccessStatus ? ContentOf<R[S]> : never }[keyof R]
  : never;

/** All of an input's members optional: the call may omit it. */
type Args<Input> = Record<never, never> extends Input ? [input?: Input] : [input: Input];

/** One typed method per name of the table. */
export type Methods<Paths, Table extends Record<string, string>> = {
  [Name in keyof Table]: (
    ...args: Args<InputOf<OperationOf<Paths, Table[Name]>>>
  ) => Promise<AnswerOf<OperationOf<Paths, Table[Name]>>>;
};

/** The list an answer of a paged operation holds, under the name its register gives it. */
export type ItemsOf<Answer> = Answer extends { items?: (infer I)[] }
  ? I
  : Answer extends { financingStatements?: (infer I)[] }
    ? I
    : Answer extends { fees?: (infer I)[] }
      ? I
      : Answer extends { clients?: (infer I)[] }
        ? I
        : never;

/** The names of the table whose operations take a `page` query parameter. */
export type PagedNames<Paths, Table extends Record<string, string>> = {
  [Name in keyof Table]: Parameters_<OperationOf<Paths, Table[Name]>> extends { query?: infer Q }
    ? [Exclude<Q, undefined>] extends [never]
      ? never
      : 'page' extends keyof Exclude<Q, undefined>
        ? Name
        : never
    : never;
}[keyof Table];
