/**
 * The portal's download links (bulk data files, data-request answers): signed with a key derived from
 * the server's secret (`platform/signed-url.ts`), bound to the path and to the user they were made for,
 * and valid this long, in real time.
 */
export const DOWNLOAD_LINK_SECONDS = 15 * 60;
