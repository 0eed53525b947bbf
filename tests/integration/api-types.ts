// The types of api() (helpers.ts), looked up by path in the web app's generated API types
// (web/src/api/generated-types.ts, from the OpenAPI document): for a documented `METHOD path` the body is the success answer with
// the error answers' named fields optional (a test reads either, whatever the status it expects);
// a call the document does not list (or a method held in a plain string) stays `any`.
import type { ApiPaths } from '../../web/src/api/generated-types';

type WithoutQuery<P extends string> = P extends `${infer Path}?${string}` ? Path : P;
/** Whether a called path fits a documented one segment by segment (`{id}` fits any one segment). */
type Fits<P extends string, T extends string> = P extends `${infer PHead}/${infer PTail}`
  ? T extends `${infer THead}/${infer TTail}`
    ? SegmentFits<PHead, THead> extends true
      ? Fits<PTail, TTail>
      : false
    : false
  : T extends `${string}/${string}`
    ? false
    : SegmentFits<P, T>;
type SegmentFits<P extends string, T extends string> = T extends `{${string}}`
  ? true
  : P extends T
    ? true
    : false;
/** The documented operation a call is: its exact path, else the template it fits. */
type OperationOf<M extends string, P extends string> = string extends M
  ? never
  : `${M} ${WithoutQuery<P>}` extends keyof ApiPaths
    ? `${M} ${WithoutQuery<P>}`
    : {
        [K in keyof ApiPaths]: K extends `${M} ${infer T}`
          ? Fits<WithoutQuery<P>, T> extends true
            ? K
            : never
          : never;
      }[keyof ApiPaths];
type KnownKeys<T> = keyof { [K in keyof T as string extends K ? never : K]: 0 };
/** Every named field of the error bodies, optional. */
type ErrorFields<E> = {
  [K in E extends unknown ? KnownKeys<E> : never]?: E extends unknown
    ? K extends KnownKeys<E>
      ? E[K]
      : never
    : never;
};
/** An answer that asks for another step (sign-in's two-factor challenge) reads like an error: its fields optional. */
type StepAnswer = { twoFactorRequired: true };
type BodyOf<O extends keyof ApiPaths> = (ApiPaths[O]['response'] extends Blob
  ? string
  : Exclude<ApiPaths[O]['response'], StepAnswer>) &
  ErrorFields<ApiPaths[O]['errors'] | Extract<ApiPaths[O]['response'], StepAnswer>>;
/** The body type of a call, e.g. AnswerOf<'GET', `/api/backups/${string}`>. */
export type AnswerOf<M extends string, P extends string> = [OperationOf<M, P>] extends [never]
  ? any
  : BodyOf<OperationOf<M, P>>;
