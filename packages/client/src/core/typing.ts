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
  /** The ETag a write must match (`If-Match`); the one the client remembers for the resource otherwise. */
  ifMatch?: string;
}

type Flatten<T> = { [K in keyof T]: T[K] };

type SuccessStatus = 200 | 201 | 202 | 203 | 204 | 206 | '200' | '201' | '202' | '204';

type Successes<Op> = Op extends { responses: infer R }
  ? { [S in keyof R]: S extends SuccessStatus ? R[S] : never }[keyof R]
  : never;

/** The media types a success of the operation may have (`application/json`, `text/csv`, `application/pdf`…). */
export type MediaOf<Op> =
  Successes<Op> extends infer R ? (R extends { content: infer C } ? keyof C & string : never) : never;

/** The media type asked for when the call names none: JSON when the operation answers it, else its own. */
export type DefaultMediaOf<Op> = [MediaOf<Op>] extends [never]
  ? 'application/json'
  : 'application/json' extends MediaOf<Op>
    ? 'application/json'
    : MediaOf<Op>;

/** A JSON media type (`application/json`, `application/problem+json`). */
type JsonMedia = 'application/json' | `${string}+json`;
/** A media type whose body is text: `text/*` (CSV, XML) and the XML types. */
type TextMedia = `text/${string}` | `${string}/xml` | `${string}+xml`;

/** What a success answers in one media type: its JSON, text (CSV, XML), or a `Blob` (a PDF, an image). */
type BodyIn<R, M> = M extends JsonMedia
  ? R extends { content: infer C }
    ? M extends keyof C
      ? C[M]
      : never
    : undefined
  : M extends TextMedia
    ? string
    : Blob;

/** What a success of the operation answers in media type `M` (an answer without content: undefined). */
export type AnswerIn<Op, M> =
  Successes<Op> extends infer R
    ? R extends { content: infer C }
      ? keyof C extends never
        ? undefined
        : BodyIn<R, M>
      : undefined
    : never;

/** An operation that answers with a redirect (a document behind a signed URL), followed by `fetch`. */
type Redirects<Op> = Op extends { responses: infer R }
  ? Extract<keyof R, 301 | 302 | 303 | 307 | '302'>
  : never;

/**
 * What a success of the operation answers when the call names no media type (JSON when it has JSON); a
 * redirect's document, followed, as a Blob.
 */
export type AnswerOf<Op> = [Successes<Op>] extends [never]
  ? [Redirects<Op>] extends [never]
    ? never
    : Blob
  : AnswerIn<Op, DefaultMediaOf<Op>>;

/** What a call of the operation takes. */
export type InputOf<Op> = Flatten<
  Part<Parameters_<Op>, 'path'> & Part<Parameters_<Op>, 'query'> & HeaderPart<Parameters_<Op>> & BodyOf<Op>
> &
  CallOptions & {
    /** The media type to ask for (`Accept`), one the operation answers; JSON by default when it has JSON. */
    accept?: DefaultMediaOf<Op>;
  };

/** All of an input's members optional: the call may omit it. */
type Args<Input> = Record<never, never> extends Input ? [input?: Input] : [input: Input];

/**
 * A typed method: called without `accept`, it answers the default media type's body; with `accept`, one
 * of the media types the operation answers, that type's (`text/csv` and XML: a string; a PDF: a Blob).
 */
export type Method<Op> = ((...args: Args<InputOf<Op>>) => Promise<AnswerOf<Op>>) &
  (<M extends MediaOf<Op>>(input: Omit<InputOf<Op>, 'accept'> & { accept: M }) => Promise<AnswerIn<Op, M>>);

/** One typed method per name of the table. */
export type Methods<Paths, Table extends Record<string, string>> = {
  [Name in keyof Table]: Method<OperationOf<Paths, Table[Name]>>;
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
