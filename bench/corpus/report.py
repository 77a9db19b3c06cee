#!/usr/bin/env python3
"""bench/corpus/report.py: the figures of bench/corpus/measure.sh (docs/CORPUS.md).

  report.py spec <corpus>
      one JSON line per skill: {repo, skill, errors} as the specification's reference
      validator (skills_ref, on PYTHONPATH) finds them.
  report.py roundtrip <corpus>/<repo> <me's clone> <bob's clone>
      one TSV line per file of each skill bob committed: skill, path, kind (SKILL.md or
      file), and what me's clone holds: identical, differs, mode (same bytes, executable bit
      not), missing; files only in me's clone are extra, a skill not cloned skill-missing. A
      SKILL.md that differs is frontmatter (the body after it is the same) or body.
  report.py report <corpus> <out>
      reads <out>/raw and writes <out>/report.json (every figure), validate.tsv,
      audit-high.tsv, audit-rules.tsv, e2e.tsv and summary.md.
"""
import collections
import json
import os
import re
import sys
from pathlib import Path

SENTENCE = "This sentence was added by the corpus measurement."
MARKDOWN = (".md", ".markdown", ".mdx")


def walk(top):
    """The files (and symlinks) under top, as paths relative to it."""
    found = set()
    for d, dirs, files in os.walk(top):
        dirs[:] = [x for x in dirs if not os.path.islink(os.path.join(d, x))]
        for x in files + [x for x in os.listdir(d) if os.path.islink(os.path.join(d, x))]:
            found.add(os.path.relpath(os.path.join(d, x), top))
    return found


def same(a, b):
    """identical, differs or mode: the file b against the file a."""
    if os.path.islink(a) or os.path.islink(b):
        ok = os.path.islink(a) and os.path.islink(b) and os.readlink(a) == os.readlink(b)
        return "identical" if ok else "differs"
    with open(a, "rb") as fa, open(b, "rb") as fb:
        if fa.read() != fb.read():
            return "differs"
    xa, xb = os.stat(a).st_mode & 0o111 != 0, os.stat(b).st_mode & 0o111 != 0
    return "identical" if xa == xb else "mode"


def body(path):
    """What follows SKILL.md's frontmatter, line endings as they are."""
    with open(path, "rb") as f:
        lines = f.read().split(b"\n")
    if lines and lines[0].rstrip(b"\r") == b"---":
        for i in range(1, len(lines)):
            if lines[i].rstrip(b"\r") == b"---":
                return b"\n".join(lines[i + 1 :])
    return b"\n".join(lines)


def roundtrip(corpus_repo, me, bob):
    for skill in sorted(os.listdir(bob)):
        if skill.startswith(".") or not os.path.isdir(os.path.join(bob, skill)):
            continue
        src, dst = os.path.join(corpus_repo, skill), os.path.join(me, skill)
        if not os.path.isdir(dst):
            print(f"{skill}\t\tskill\tskill-missing")
            continue
        theirs, mine = walk(src), walk(dst)
        for path in sorted(theirs | mine):
            kind = "SKILL.md" if path == "SKILL.md" else "file"
            if path not in mine:
                state = "missing"
            elif path not in theirs:
                state = "extra"
            else:
                state = same(os.path.join(src, path), os.path.join(dst, path))
                if kind == "SKILL.md" and state == "differs":
                    same_body = body(os.path.join(src, path)) == body(os.path.join(dst, path))
                    state = "frontmatter" if same_body else "body"
            print(f"{skill}\t{path}\t{kind}\t{state}")


def read(path, default=""):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return default


def rc_of(prefix):
    text = read(prefix + ".rc").strip()
    return int(text) if text.lstrip("-").isdigit() else None


def load_json(path):
    try:
        return json.loads(read(path))
    except ValueError:
        return None


def normal(message):
    """A message with the numbers that vary from skill to skill taken out, for grouping."""
    message = re.sub(r"\(\d+\)", "(N)", message)
    message = re.sub(r"^\d+ ", "N ", message)
    return re.sub(r"'[^']*'", "'…'", message)


def field_message(e):
    return f"{e['field']}: {e.get('message', '')}" if e.get("field") else e.get("message", "")


def failure(prefix):
    """How the command whose output is at prefix failed: its status and stderr, on one line."""
    return f"exit {rc_of(prefix)}: " + one_line(read(prefix + ".err"))


def listed(counter):
    """'a 3, b 1' (or 'none')."""
    return ", ".join(f"{k} {n}" for k, n in counter.items()) or "none"


def one_line(text, limit=300):
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def skills_of(corpus):
    """[(repo, skill)] of the corpus, sorted."""
    out = []
    for repo in sorted(os.listdir(corpus)):
        if "__" in repo and os.path.isdir(os.path.join(corpus, repo)):
            for skill in sorted(os.listdir(os.path.join(corpus, repo))):
                if os.path.isdir(os.path.join(corpus, repo, skill)):
                    out.append((repo, skill))
    return out


def spec(corpus):
    from skills_ref.validator import validate  # pylint: disable=import-outside-toplevel

    for repo, skill in skills_of(corpus):
        try:
            errors = [str(e) for e in validate(Path(corpus, repo, skill))]
        except Exception as e:  # pylint: disable=broad-except
            errors = [f"the validator failed: {e!r}"]
        print(json.dumps({"repo": repo, "skill": skill, "errors": errors}), flush=True)


def spec_normal(message):
    """A reference validator's message, shortened and grouped."""
    message = message.split(". Only [")[0].split("\n")[0]
    return normal(re.sub(r"\(\d+ chars\)", "(N chars)", message))


def spec_step(raw):
    """({(repo, skill): [errors]}, figures), or (None, None) when the step did not run."""
    lines = read(os.path.join(raw, "spec.out")).splitlines()
    if not lines:
        return None, None
    found, by = {}, collections.Counter()
    for line in lines:
        d = json.loads(line)
        found[(d["repo"], d["skill"])] = d["errors"]
        by.update({spec_normal(e) for e in d["errors"]})
    valid = sum(1 for e in found.values() if not e)
    return found, {"skills": len(found), "valid": valid, "invalid": len(found) - valid,
                   "invalid_by_message": dict(by.most_common())}


def validate_step(raw, skills):
    rows, refused, warned = [], collections.Counter(), collections.Counter()
    counts = collections.Counter()
    for repo, skill in skills:
        p = os.path.join(raw, "validate", repo, skill)
        rc, doc = rc_of(p), load_json(p + ".out")
        if rc not in (0, 1) or not isinstance(doc, dict):
            state, why = "failed", [failure(p)]
        else:
            state = "valid" if doc.get("valid") else "refused"
            why = [field_message(e) for e in doc.get("errors", [])]
            for m in {normal(field_message(w)) for w in doc.get("warnings", [])}:
                warned[m] += 1
        counts[state] += 1
        for m in {normal(w) for w in why}:
            refused[m] += 1
        rows.append((repo, skill, state, "; ".join(why)))
    return {
        "skills": len(skills),
        "valid": counts["valid"],
        "refused": counts["refused"],
        "failed": counts["failed"],
        "refusals_by_message": dict(refused.most_common()),
        "warnings_by_message": dict(warned.most_common()),
    }, rows


def fenced_lines(lines):
    """The set of line numbers (1-based) inside fenced code blocks, and the frontmatter's."""
    code, front, fence = set(), set(), None
    if lines and lines[0].strip() == "---":
        for i in range(1, len(lines)):
            front.add(i + 1)
            if lines[i].strip() == "---":
                break
        front.add(1)
    for i, line in enumerate(lines, 1):
        if i in front:
            continue
        m = re.match(r"\s*(`{3,}|~{3,})", line)
        if fence:
            code.add(i)
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
        elif m:
            fence = m.group(1)
            code.add(i)
    return code, front


def where(corpus, repo, finding):
    """Where a finding sits: frontmatter; in Markdown, markdown-fenced (a fenced code block),
    markdown-inline (a line with inline code: the match may be in it or beside it) or
    markdown-prose (a line without code); code-or-text (any other text file); binary."""
    path = os.path.join(corpus, repo, finding.get("skill", ""), finding.get("path") or "")
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return "unknown"
    if b"\0" in data:
        return "binary"
    if not path.lower().endswith(MARKDOWN):
        return "code-or-text"
    lines = data.decode("utf-8", "replace").split("\n")
    code, front = fenced_lines(lines)
    n = finding.get("line") or 0
    if n in front:
        return "frontmatter"
    if n in code:
        return "markdown-fenced"
    line = lines[n - 1] if 0 < n <= len(lines) else ""
    return "markdown-inline" if re.search(r"`[^`]+`", line) else "markdown-prose"


def audit_step(raw, corpus, skills):
    by_rule = collections.defaultdict(collections.Counter)
    rule_skills = collections.defaultdict(set)
    levels, places, high_skills, failed = collections.Counter(), collections.Counter(), set(), []
    high_rows = []
    for repo, skill in skills:
        p = os.path.join(raw, "audit", repo, skill)
        rc, doc = rc_of(p), load_json(p + ".out")
        if rc not in (0, 1) or not isinstance(doc, dict):
            failed.append({"repo": repo, "skill": skill, "why": failure(p)})
            continue
        for f in doc.get("findings", []):
            rule, level = f.get("rule", "?"), f.get("level", "?")
            by_rule[rule][level] += 1
            levels[level] += 1
            if level != "high":
                continue
            rule_skills[rule].add((repo, skill))
            high_skills.add((repo, skill))
            place = where(corpus, repo, f)
            places[place] += 1
            high_rows.append((repo, skill, rule, f.get("path") or "", f.get("line") or "", place,
                              one_line(f.get("excerpt") or "", 200)))
    only = collections.Counter()
    for repo, skill in sorted(high_skills):
        rules = {r[2] for r in high_rows if r[0] == repo and r[1] == skill}
        if len(rules) == 1:
            only[rules.pop()] += 1
    audited = len(skills) - len(failed)
    return {
        "skills": len(skills),
        "audited": audited,
        "failed": failed,
        "skills_with_high": len(high_skills),
        "share_with_high": round(len(high_skills) / audited, 4) if audited else None,
        "findings_by_level": dict(levels),
        "findings_by_rule": {r: dict(c) for r, c in sorted(by_rule.items())},
        "skills_with_high_by_rule": {r: len(s) for r, s in sorted(rule_skills.items())},
        "skills_whose_only_high_rule_is": dict(only.most_common()),
        "high_findings": len(high_rows),
        "high_findings_by_place": dict(places.most_common()),
        "high": [dict(zip(("repo", "skill", "rule", "path", "line", "place", "excerpt"), r))
                 for r in high_rows],
    }, high_rows, by_rule, rule_skills


def commit_reasons(err, skill):
    """The problems a refused commit named, without the path before each."""
    out = []
    for line in err.splitlines():
        if line.startswith("error: "):
            m = re.match(r"(\S*?): (.*)$", line[7:])
            out.append(m.group(2) if m and m.group(1).split("/")[0] == skill else line[7:])
    return out or [one_line(err)]


def e2e_repo(raw, corpus, repo, rows):
    e = os.path.join(raw, "e2e", repo)
    skills = [s for r, s in skills_of(corpus) if r == repo]
    res = {"repo": repo, "skills": len(skills), "committed": 0, "refused": 0, "pushed": False,
           "cloned": False, "clone_warnings": 0, "edit_pushed": False, "pulled": False,
           "held": 0, "merged": 0, "edited": 0}
    if not os.path.isdir(e):
        res["error"] = "not run"
        return res, collections.Counter(), [], {}
    refusals, committed = collections.Counter(), []
    per = {}
    for s in skills:
        p = os.path.join(e, "commit", s)
        rc = rc_of(p)
        if rc == 0:
            committed.append(s)
            per[s] = {"commit": "committed", "why": ""}
        elif rc is not None:
            why = commit_reasons(read(p + ".err"), s)
            for m in {normal(w) for w in why}:
                refusals[m] += 1
            per[s] = {"commit": "refused", "why": "; ".join(why)}
    res["committed"] = len(committed)
    res["refused"] = sum(1 for v in per.values() if v["commit"] == "refused")
    for step in ("login", "bob-clone", "push", "clone", "edit-push", "pull", "review"):
        rc = rc_of(os.path.join(e, step))
        if rc not in (None, 0):
            res.setdefault("errors", {})[step] = failure(os.path.join(e, step))
    res["pushed"] = rc_of(os.path.join(e, "push")) == 0
    res["cloned"] = rc_of(os.path.join(e, "clone")) == 0
    warnings = read(os.path.join(e, "clone.err")).splitlines()
    res["clone_warnings"] = sum(1 for x in warnings if x.strip())
    res["edit_pushed"] = rc_of(os.path.join(e, "edit-push")) == 0
    res["pulled"] = rc_of(os.path.join(e, "pull")) == 0
    trip = read(os.path.join(e, "roundtrip.tsv")).splitlines()
    trip = [line.split("\t") for line in trip if line]
    review = load_json(os.path.join(e, "review.out"))
    held = {h.get("name"): h for h in review} if isinstance(review, list) else {}
    dirty = read(os.path.join(e, "status-after-pull")).splitlines()
    res["dirty_after_pull"] = [x for x in dirty if x.strip()]
    if res["pulled"] and not isinstance(review, list):
        res.setdefault("errors", {})["review"] = "review --json: not a JSON array"
    for step in ("push", "clone", "edit-push", "pull"):
        ms = read(os.path.join(e, step) + ".ms").strip()
        res[f"{step}_ms"] = int(ms) if ms.isdigit() else None
    merged = set(read(os.path.join(e, "merged")).split())
    reasons, rules = collections.Counter(), collections.Counter()
    for s in committed:
        if s in held:
            per[s]["edit"] = "held"
            per[s]["held_for"] = held[s].get("reason", "")
            reasons[held[s].get("reason", "")] += 1
            findings = held[s].get("findings", [])
            rules.update({f.get("rule") for f in findings if f.get("level") == "high"})
        elif s in merged:
            per[s]["edit"] = "merged"
        else:
            per[s]["edit"] = "not arrived"
    res["edited"] = len(committed) if res["edit_pushed"] else 0
    res["held"] = sum(1 for s in committed if s in held)
    res["merged"] = len(merged & set(committed))
    for s in skills:
        v = per.get(s, {"commit": "not run", "why": ""})
        lines = [t for t in trip if t[0] == s]
        skill_md = next((t[3] for t in lines if t[2] == "SKILL.md"), "")
        if any(t[3] == "skill-missing" for t in lines):
            skill_md = "skill-missing"
        files = [t for t in lines if t[2] == "file"]
        same_files = sum(1 for t in files if t[3] == "identical")
        files_same = f"{same_files}/{len(files)}" if lines else ""
        rows.append((repo, s, v["commit"], v["why"], skill_md, files_same, v.get("edit", ""),
                     v.get("held_for", "")))
    return res, refusals, trip, {"reasons": reasons, "rules": rules}


def e2e_step(raw, corpus, repos):
    if not os.path.isdir(os.path.join(raw, "e2e")):
        return None, [], []
    rows, trips, out = [], [], []
    refusals, reasons, rules = collections.Counter(), collections.Counter(), collections.Counter()
    for repo in repos:
        res, ref, trip, held = e2e_repo(raw, corpus, repo, rows)
        out.append(res)
        refusals.update(ref)
        reasons.update(held.get("reasons", {}))
        rules.update(held.get("rules", {}))
        trips += [[repo] + t for t in trip]
    total = lambda k: sum(r[k] for r in out)
    edited = total("edited")
    return {
        "skills": total("skills"),
        "committed": total("committed"),
        "refused_at_commit": total("refused"),
        "refusals_by_message": dict(refusals.most_common()),
        "repos": out,
        "clone_warnings": total("clone_warnings"),
        "prose_edits": edited,
        "prose_edits_held": total("held"),
        "share_held": round(total("held") / edited, 4) if edited else None,
        "prose_edits_merged": total("merged"),
        "dirty_after_pull": [f"{r['repo']}: {x}"
                             for r in out for x in r.get("dirty_after_pull", [])],
        "held_by_reason": dict(reasons.most_common()),
        "held_skills_by_high_rule": dict(rules.most_common()),
        "ms": {k: sum(r.get(f"{k}_ms") or 0 for r in out)
               for k in ("push", "clone", "edit-push", "pull")},
    }, rows, trips


def roundtrip_step(trips):
    if not trips:
        return None
    skills = collections.defaultdict(list)
    for t in trips:
        skills[(t[0], t[1])].append(t)
    counts = {"SKILL.md": collections.Counter(), "file": collections.Counter()}
    whole = 0
    for lines in skills.values():
        if all(t[4] == "identical" for t in lines):
            whole += 1
        for t in lines:
            counts.get(t[3], counts["file"])[t[4]] += 1
    return {
        "skills_compared": len(skills),
        "skills_byte_identical": whole,
        "skill_md": dict(counts["SKILL.md"]),
        "other_files": dict(counts["file"]),
        "skills_with_skill_md_changed": sorted(
            f"{t[0]}/{t[1]}" for t in trips if t[3] == "SKILL.md" and t[4] != "identical"),
        "other_files_not_identical": [{"repo": t[0], "skill": t[1], "path": t[2], "state": t[4]}
                                      for t in trips if t[3] != "SKILL.md" and t[4] != "identical"],
    }


def meta_of(raw):
    meta = {}
    for line in read(os.path.join(raw, "meta.tsv")).splitlines():
        k, _, v = line.partition("\t")
        meta[k] = v
    corpus = [dict(zip(("repo", "commit", "skills"), line.split("\t")))
              for line in read(os.path.join(raw, "corpus.tsv")).splitlines() if line]
    steps = [x.split() for x in read(os.path.join(raw, "steps")).splitlines() if x.strip()]
    times = {}
    for (name, start), nxt in zip(steps, steps[1:]):
        times[name] = int(nxt[1]) - int(start)
    meta["seconds"] = times
    return meta, corpus


def tsv(path, header, rows):
    with open(path, "w", encoding="utf-8") as f:
        f.write("\t".join(header) + "\n")
        for r in rows:
            f.write("\t".join(str(x).replace("\t", " ").replace("\n", " ") for x in r) + "\n")


def pct(n, d):
    return f"{n}/{d} ({100 * n / d:.1f}%)" if d else f"{n}/0"


def summary(rep):
    m, v, a, e, t, sp = (rep["meta"], rep["validate"], rep["audit"], rep["e2e"], rep["roundtrip"],
                         rep["spec"])
    out = [f"# Corpus figures: {m.get('version', '?')}", "",
           f"Measured {m.get('date', '?')} on checkout {m.get('checkout', '?')[:12]}; "
           f"{rep['skills']} skills from {len(rep['corpus'])} repositories; "
           f"times (s): {', '.join(f'{k} {s}' for k, s in m['seconds'].items())}.", "",
           "## the specification's reference validator", ""]
    if sp:
        out += [f"- valid by the spec: {pct(sp['valid'], sp['skills'])}; skillsync refuses "
                f"{len(sp['valid_refused_by_skillsync'])} of them and accepts "
                f"{sp['invalid_accepted_by_skillsync']} the spec does not", "",
                "| invalid by the spec for | skills |", "|---|---|"]
        out += [f"| {k} | {n} |" for k, n in sp["invalid_by_message"].items()]
    else:
        out.append("- not measured (no reference validator, or no strictyaml)")
    out += ["", "## validate", "",
           f"- valid: {pct(v['valid'], v['skills'])}; refused: {v['refused']}; "
           f"failed to run: {v['failed']}", ""]
    out += ["| skills refused for | skills |", "|---|---|"]
    out += [f"| {k} | {n} |" for k, n in v["refusals_by_message"].items()]
    out += ["", "## audit", "",
            f"- skills with a high finding: {pct(a['skills_with_high'], a['audited'])}"
            f" (failed to run: {len(a['failed'])})",
            f"- findings by level: {listed(dict(sorted(a['findings_by_level'].items())))}",
            f"- high findings: {a['high_findings']}, "
            f"by place: {listed(a['high_findings_by_place'])}",
            f"- skills whose only high rule is: {listed(a['skills_whose_only_high_rule_is'])}", "",
            "| rule | high | medium | low | info | skills with it high |",
            "|---|---|---|---|---|---|"]
    for r, c in a["findings_by_rule"].items():
        out.append(f"| {r} | {c.get('high', 0)} | {c.get('medium', 0)} | {c.get('low', 0)} | "
                   f"{c.get('info', 0)} | {a['skills_with_high_by_rule'].get(r, 0)} |")
    out += ["", "Every high finding, to read: audit-high.tsv.", ""]
    if e:
        out += ["## end to end (bob shares, me clones, bob edits prose, me pulls)", "",
                f"- committed by bob: {pct(e['committed'], e['skills'])}; "
                f"refused at commit: {e['refused_at_commit']}; lines of warning in me's clone: "
                f"{e['clone_warnings']}",
                f"- prose-only edits pulled by me: {e['prose_edits']}; held for review: "
                f"{pct(e['prose_edits_held'], e['prose_edits'])}; "
                f"merged: {e['prose_edits_merged']}; neither: "
                f"{e['prose_edits'] - e['prose_edits_held'] - e['prose_edits_merged']}",
                f"- paths `git status` shows changed in me's clone after the pull (me changed "
                f"nothing): {len(e['dirty_after_pull'])}",
                f"- held, by reason: {listed(e['held_by_reason'])}",
                f"- held skills by high rule: {listed(e['held_skills_by_high_rule'])}",
                f"- wall time over the {len(e['repos'])} repositories (ms): {listed(e['ms'])}",
                "", "| refused at commit for | skills |", "|---|---|"]
        out += [f"| {k} | {n} |" for k, n in e["refusals_by_message"].items()]
        errors = [f"{r['repo']}: {k}: {x}"
                  for r in e["repos"] for k, x in r.get("errors", {}).items()]
        if errors:
            out += ["", "Steps that failed:", ""] + [f"- {x}" for x in errors]
        if e["dirty_after_pull"]:
            out += ["", "Changed in me's clone after the pull:", ""]
            out += [f"- `{x}`" for x in e["dirty_after_pull"][:20]]
        out.append("")
    if t:
        sm, of = t["skill_md"], t["other_files"]
        out += ["## round trip (me's clone against the corpus)", "",
                f"- skills compared: {t['skills_compared']}; every file byte-identical: "
                f"{pct(t['skills_byte_identical'], t['skills_compared'])}",
                f"- SKILL.md: {listed(dict(sorted(sm.items())))}",
                f"- other files: {listed(dict(sorted(of.items())))}"]
        if "spec_valid_compared" in t:
            out.append(f"- skills valid by the spec, every file byte-identical: "
                       f"{pct(t['spec_valid_byte_identical'], t['spec_valid_compared'])}")
        out.append("")
    return "\n".join(out)


def report(corpus, out):
    raw = os.path.join(out, "raw")
    skills = skills_of(corpus)
    repos = sorted({r for r, _ in skills})
    meta, listed = meta_of(raw)
    spec_errors, sp = spec_step(raw)
    v, vrows = validate_step(raw, skills)
    a, high_rows, by_rule, rule_skills = audit_step(raw, corpus, skills)
    e, erows, trips = e2e_step(raw, corpus, repos)
    rep = {"meta": meta, "corpus": listed or [{"repo": r} for r in repos], "skills": len(skills),
           "spec": sp, "validate": v, "audit": a, "e2e": e, "roundtrip": roundtrip_step(trips)}
    if sp:
        spec_valid = {k for k, errs in spec_errors.items() if not errs}
        vrows = [r + ("valid" if (r[0], r[1]) in spec_valid else "invalid",) for r in vrows]
        sp["valid_refused_by_skillsync"] = [{"repo": r[0], "skill": r[1], "why": r[3]}
                                            for r in vrows if r[4] == "valid" and r[2] != "valid"]
        sp["invalid_accepted_by_skillsync"] = sum(1 for r in vrows
                                                  if r[4] == "invalid" and r[2] == "valid")
        if trips:
            rt = rep["roundtrip"]
            kept = {(t[0], t[1]) for t in trips} & spec_valid
            bad = {(t[0], t[1]) for t in trips if t[4] != "identical"}
            rt["spec_valid_compared"] = len(kept)
            rt["spec_valid_byte_identical"] = len(kept - bad)
    with open(os.path.join(out, "report.json"), "w", encoding="utf-8") as f:
        json.dump(rep, f, indent=1, ensure_ascii=False)
    tsv(os.path.join(out, "validate.tsv"), ("repo", "skill", "state", "errors", "spec"), vrows)
    tsv(os.path.join(out, "audit-high.tsv"),
        ("repo", "skill", "rule", "path", "line", "place", "excerpt"), high_rows)
    levels = ("high", "medium", "low", "info")
    tsv(os.path.join(out, "audit-rules.tsv"), ("rule",) + levels + ("skills_with_high",),
        [(r,) + tuple(c.get(x, 0) for x in levels) + (len(rule_skills.get(r, ())),)
         for r, c in sorted(by_rule.items())])
    if e:
        tsv(os.path.join(out, "e2e.tsv"),
            ("repo", "skill", "commit", "refused_for", "skill_md", "files_identical", "edit",
             "held_for"), erows)
        tsv(os.path.join(out, "roundtrip.tsv"), ("repo", "skill", "path", "kind", "state"), trips)
    with open(os.path.join(out, "summary.md"), "w", encoding="utf-8") as f:
        f.write(summary(rep))


def main(argv):
    if len(argv) == 4 and argv[0] == "roundtrip":
        roundtrip(*argv[1:])
    elif len(argv) == 2 and argv[0] == "spec":
        spec(argv[1])
    elif len(argv) == 3 and argv[0] == "report":
        report(*argv[1:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
