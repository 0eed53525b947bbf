// Work that comes due (a database's next scheduled look, an account's next retention pass) is
// filed under the minute it comes due. FerretDB 1.24 on PostgreSQL pushes only equality filters
// down to an index (`$lte` runs in FerretDB over every row), so the timers ask for one minute at
// a time, `{dueBucket: m}`, and read only what is due in it (docs/architecture.md, "Work that
// comes due"). MongoDB answers the same equality from the same index.

/** The width of one bucket: the timers tick every 30–60 s, so each tick reads about one bucket. */
export const DUE_BUCKET_MS = 60_000;

/** The bucket a due time is filed under. */
export const dueBucket = (at: Date) => Math.floor(at.getTime() / DUE_BUCKET_MS);

/** The fields of a record filed by due time: null is "parked", waiting for an event to wake it. */
export const dueFields = (at: Date | null) => ({ dueAt: at, dueBucket: at ? dueBucket(at) : null });
