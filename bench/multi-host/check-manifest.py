#!/usr/bin/env python3
"""check-manifest.py - a Kubernetes manifest checked against the API's schema,
offline: no cluster, no kubectl. See docs/multi-host.md.

Usage: check-manifest.py [--models DIR] MANIFEST.yaml...

The schema is the one Debian's python3-kubernetes was generated from (its
models: one class per API type, each with its fields' JSON names and types,
and the required ones refusing None). The models are read as text, never
imported, so none of the package's dependencies is needed; PyYAML is.
DIR is the package's kubernetes/client/models directory; by default the one
python3 finds. Every document of every MANIFEST is checked: its kind and
apiVersion name a type, and each field, down to the leaves, is one that
type has, of that type's kind (string, integer, boolean, list, map, object),
with no required field missing. What the models do not say is not
checked: values (names, enums, ranges), and a Quantity (cpu: 1) is a
string there, so quote it.
Exit status: 0 all valid, 1 a field or document is not (each said, by its
path), 2 a usage error (no models, a file that cannot be read or parsed).
"""
import ast
import importlib.util
import os
import re
import sys


class Schema:
    """The API types of a models directory, each read when first asked for:
    schema.fields(NAME) is {json name: (type, required)}, or None."""

    def __init__(self, models_dir):
        self.files = {}  # type name -> its model's file
        self.read = {}
        self.release = "?"
        for name in sorted(os.listdir(models_dir)):
            if name.endswith(".py") and name != "__init__.py":
                path = os.path.join(models_dir, name)
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                for m in re.finditer(r"^class (\w+)\(", text, re.M):
                    self.files[m.group(1)] = path
                m = re.search(r"version of the OpenAPI document: (\S+)", text)
                if m:
                    self.release = m.group(1).replace("release-", "")
        if not self.files:
            raise ValueError("%s: no API types there" % models_dir)

    def fields(self, name):
        if name not in self.read and name in self.files:
            with open(self.files[name], encoding="utf-8") as f:
                self._add(f.read(), name)
        return self.read.get(name)

    def _add(self, text, name):
        self.read[name] = None
        for node in ast.parse(text).body:
            if not isinstance(node, ast.ClassDef) or node.name != name:
                continue
            fields = json_names = None
            required = set()
            for item in node.body:
                if isinstance(item, ast.Assign) and len(item.targets) == 1 and isinstance(item.targets[0], ast.Name):
                    if item.targets[0].id == "openapi_types":
                        fields = ast.literal_eval(item.value)
                    elif item.targets[0].id == "attribute_map":
                        json_names = ast.literal_eval(item.value)
                elif isinstance(item, ast.FunctionDef) and any(
                    isinstance(d, ast.Attribute) and d.attr == "setter" for d in item.decorator_list
                ):
                    # a required field's setter refuses None
                    if "must not be `None`" in (ast.get_source_segment(text, item) or ""):
                        required.add(item.name)
            if fields is not None and json_names is not None:
                self.read[name] = {
                    json_names[a]: (t, a in required) for a, t in fields.items()
                }


def type_of(doc):
    """The model's name for a document's apiVersion and kind: batch/v1 Job is V1Job."""
    version = str(doc.get("apiVersion", "")).rsplit("/", 1)[-1]
    return version[:1].upper() + version[1:] + str(doc.get("kind", ""))


def check(schema, value, typ, path, errors):
    """Append to errors what in value is not of type typ, each by its path."""
    if value is None:
        return
    if typ.startswith("list["):
        if not isinstance(value, list):
            errors.append("%s: a list (%s) expected, not %s" % (path, typ, kind(value)))
            return
        for i, v in enumerate(value):
            check(schema, v, typ[5:-1], "%s[%d]" % (path, i), errors)
    elif typ.startswith("dict("):
        if not isinstance(value, dict):
            errors.append("%s: a map (%s) expected, not %s" % (path, typ, kind(value)))
            return
        inner = typ[typ.index(",") + 1 : -1].strip()
        for k, v in value.items():
            if not isinstance(k, str):
                errors.append("%s: a key that is not a string: %r" % (path, k))
            check(schema, v, inner, "%s.%s" % (path, k), errors)
    elif typ in ("str", "datetime", "date"):
        if not isinstance(value, str):
            errors.append("%s: a string expected, not %s" % (path, kind(value)))
    elif typ == "int":
        if not isinstance(value, int) or isinstance(value, bool):
            errors.append("%s: an integer expected, not %s" % (path, kind(value)))
    elif typ == "float":
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            errors.append("%s: a number expected, not %s" % (path, kind(value)))
    elif typ == "bool":
        if not isinstance(value, bool):
            errors.append("%s: a boolean expected, not %s" % (path, kind(value)))
    elif typ == "object":
        pass  # IntOrString, Quantity, raw JSON: anything
    elif schema.fields(typ) is not None:
        fields = schema.fields(typ)
        if not isinstance(value, dict):
            errors.append("%s: an object (%s) expected, not %s" % (path, typ, kind(value)))
            return
        for k, v in value.items():
            if k not in fields:
                errors.append("%s.%s: no such field in %s" % (path, k, typ))
            else:
                check(schema, v, fields[k][0], "%s.%s" % (path, k), errors)
        for k, (_, required) in fields.items():
            if required and value.get(k) is None:
                errors.append("%s.%s: required by %s, missing" % (path, k, typ))
    else:
        errors.append("%s: type %s is not in the schema" % (path, typ))


def kind(value):
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}.get(
        type(value), type(value).__name__
    )


def default_models():
    spec = importlib.util.find_spec("kubernetes")  # found, not imported
    if spec is None or not spec.submodule_search_locations:
        return None
    return os.path.join(list(spec.submodule_search_locations)[0], "client", "models")


def main(argv):
    args = argv[1:]
    models = None
    if args[:1] == ["--models"] and len(args) >= 2:
        models, args = args[1], args[2:]
    if not args or args[0].startswith("-"):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    models = models or default_models()
    if not models or not os.path.isdir(models):
        print("check-manifest.py: no python3-kubernetes models (apt-get install python3-kubernetes, "
              "or --models DIR)", file=sys.stderr)
        return 2
    try:
        import yaml
    except ImportError:
        print("check-manifest.py: PyYAML is needed (apt-get install python3-yaml)", file=sys.stderr)
        return 2
    try:
        schema = Schema(models)
    except (OSError, SyntaxError, ValueError) as e:
        print("check-manifest.py: %s" % e, file=sys.stderr)
        return 2
    bad = 0
    for path in args:
        try:
            with open(path, encoding="utf-8") as f:
                docs = [d for d in yaml.safe_load_all(f) if d is not None]
        except (OSError, yaml.YAMLError) as e:
            print("check-manifest.py: %s: %s" % (path, e), file=sys.stderr)
            return 2
        for n, doc in enumerate(docs, 1):
            where = "%s: document %d" % (path, n)
            if not isinstance(doc, dict):
                print("%s: not an object" % where)
                bad += 1
                continue
            typ = type_of(doc)
            errors = []
            if schema.fields(typ) is None:
                errors.append("apiVersion %r, kind %r: no such type (%s) in the schema"
                              % (doc.get("apiVersion"), doc.get("kind"), typ))
            else:
                check(schema, doc, typ, typ, errors)
            name = (doc.get("metadata") or {}).get("name", "?") if isinstance(doc.get("metadata"), dict) else "?"
            for e in errors:
                print("%s (%s): %s" % (where, name, e))
            if errors:
                bad += 1
            else:
                print("%s (%s %s): valid against Kubernetes %s's schema" % (where, doc.get("kind"), name,
                                                                          schema.release))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
