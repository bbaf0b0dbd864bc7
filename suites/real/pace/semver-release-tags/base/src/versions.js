// Version helpers of the release tool: read a repository's release tags and put them in order.
// The version rules (what a tag means, how two compare) are the semver package's, never re-implemented.
"use strict";

const semver = require("semver");

/** The version a release tag names ("v1.2.3" -> "1.2.3"); a TypeError for a tag that names none. */
function parseTag(tag) {
  const version = semver.clean(String(tag), { loose: true });
  if (version === null) {
    throw new TypeError(`not a release tag: ${tag}`);
  }
  return version;
}

/** The tags oldest first, by the versions they name (pre-releases before their release). */
function sortTags(tags) {
  return [...tags].sort((a, b) => semver.compare(parseTag(a), parseTag(b)));
}

module.exports = { parseTag, sortTags };
