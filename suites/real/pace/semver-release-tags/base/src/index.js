// The release-tags package: what other tools of the release pipeline may use.
"use strict";

const { parseTag, sortTags } = require("./versions");

module.exports = { parseTag, sortTags };
