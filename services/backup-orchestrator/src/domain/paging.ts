// One cursor paging for every service's lists (services/common/src/paging.ts).
export { cursorOf, type Page } from '@coffer/common';
