#!/usr/bin/env python3
"""Extracts the response schemas of the endpoints the sandbox serves from
GitHub's REST description, as JSON Schema 2020-12 files next to this script.

Usage: extract.py path/to/api.github.com.json
(npm pack @octokit/openapi; its tarball ships generated/api.github.com.json.)

OpenAPI 3.0's `nullable: true` becomes a type array (or an anyOf with null
where the schema has no type), components become $defs, and keywords that
only document (description, example, x-*) are dropped. Response bodies of
errors are included so that the sandbox's 404 and 422 are checked too.
"""
import json
import os
import sys

# operation: (method, path in the description, status)
ENDPOINTS = {
    "users-get-authenticated": ("get", "/user", "200"),
    "pulls-get": ("get", "/repos/{owner}/{repo}/pulls/{pull_number}", "200"),
    "pulls-list-files": ("get", "/repos/{owner}/{repo}/pulls/{pull_number}/files", "200"),
    "pulls-create-review": ("post", "/repos/{owner}/{repo}/pulls/{pull_number}/reviews", "200"),
    "pulls-list-reviews": ("get", "/repos/{owner}/{repo}/pulls/{pull_number}/reviews", "200"),
    "issues-list-comments": ("get", "/repos/{owner}/{repo}/issues/{issue_number}/comments", "200"),
    "issues-create-comment": ("post", "/repos/{owner}/{repo}/issues/{issue_number}/comments", "201"),
    "issues-get-comment": ("get", "/repos/{owner}/{repo}/issues/comments/{comment_id}", "200"),
    "issues-update-comment": ("patch", "/repos/{owner}/{repo}/issues/comments/{comment_id}", "200"),
    "issues-add-labels": ("post", "/repos/{owner}/{repo}/issues/{issue_number}/labels", "200"),
    "issues-list-labels-on-issue": ("get", "/repos/{owner}/{repo}/issues/{issue_number}/labels", "200"),
    "issues-create": ("post", "/repos/{owner}/{repo}/issues", "201"),
    "issues-list-for-repo": ("get", "/repos/{owner}/{repo}/issues", "200"),
    "repos-get-collaborator-permission-level": ("get", "/repos/{owner}/{repo}/collaborators/{username}/permission", "200"),
    "checks-create": ("post", "/repos/{owner}/{repo}/check-runs", "201"),
    "checks-update": ("patch", "/repos/{owner}/{repo}/check-runs/{check_run_id}", "200"),
    "checks-list-for-ref": ("get", "/repos/{owner}/{repo}/commits/{ref}/check-runs", "200"),
    "apps-get-authenticated": ("get", "/app", "200"),
    "apps-create-installation-access-token": ("post", "/app/installations/{installation_id}/access_tokens", "201"),
    "apps-get-repo-installation": ("get", "/repos/{owner}/{repo}/installation", "200"),
    "repos-compare-commits": ("get", "/repos/{owner}/{repo}/compare/{basehead}", "200"),
}
# Error bodies, by the component response that describes them.
ERRORS = {
    "error-not-found": "not_found",
    "error-validation-failed": "validation_failed",
    "error-validation-failed-simple": "validation_failed_simple",
    "error-requires-authentication": "requires_authentication",
}

DROP = {"description", "example", "examples", "externalDocs", "deprecated", "readOnly", "writeOnly", "xml", "discriminator", "title"}


def convert(node, defs_used):
    if isinstance(node, list):
        return [convert(n, defs_used) for n in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for k, v in node.items():
        if k in DROP or k.startswith("x-") or k == "nullable":
            continue
        if k == "$ref":
            name = v.rsplit("/", 1)[1]
            defs_used.add(name)
            out[k] = "#/$defs/" + name
        elif k in ("properties", "patternProperties"):
            out[k] = {p: convert(s, defs_used) for p, s in v.items()}
        else:
            out[k] = convert(v, defs_used)
    if node.get("nullable"):
        if "type" in out:
            t = out["type"]
            out["type"] = (t if isinstance(t, list) else [t]) + ["null"]
            if "enum" in out and None not in out["enum"]:
                out["enum"] = out["enum"] + [None]
        else:
            out = {"anyOf": [out, {"type": "null"}]}
    return out




def bundle(doc, schema):
    comps = doc["components"]["schemas"]
    used = set()
    root = convert(schema, used)
    defs, todo = {}, sorted(used)
    while todo:
        name = todo.pop()
        if name in defs:
            continue
        more = set()
        defs[name] = convert(comps[name], more)
        todo.extend(sorted(more - defs.keys()))
    out = {"$schema": "https://json-schema.org/draft/2020-12/schema"}
    out.update(root)
    if defs:
        out["$defs"] = dict(sorted(defs.items()))
    return out


def main():
    doc = json.load(open(sys.argv[1]))
    here = os.path.dirname(os.path.abspath(__file__))
    for name, (method, path, status) in ENDPOINTS.items():
        resp = doc["paths"][path][method]["responses"][status]
        if "$ref" in resp:
            resp = doc["components"]["responses"][resp["$ref"].rsplit("/", 1)[1]]
        write(here, name, bundle(doc, resp["content"]["application/json"]["schema"]))
    for name, comp in ERRORS.items():
        resp = doc["components"]["responses"][comp]
        write(here, name, bundle(doc, resp["content"]["application/json"]["schema"]))


def write(here, name, schema):
    with open(os.path.join(here, name + ".json"), "w") as f:
        json.dump(schema, f, indent=1, sort_keys=False)
        f.write("\n")


if __name__ == "__main__":
    main()
