// Reads guest code with acorn, inside the sandbox's analysis engine (see host/CodeAnalyzer.java).
// The code is only data here: nothing of it runs. Evaluated after acorn.js; its completion value is
// analyze(code, scriptOpen, scriptClose, moduleOpen, moduleClose, wantReferences) (the entry
// wrappers of host/EntryModule.java), which returns JSON: either {syntaxError} or {script, imports,
// hoisted, hasExports, firstExport, dynamicImports, requires, references} (references only when
// wanted).
(() => {
  "use strict";
  const { stringify } = JSON;
  const options = {
    ecmaVersion: "latest",
    sourceType: "module",
    allowReturnOutsideFunction: true,
    allowAwaitOutsideFunction: true,
    allowHashBang: true,
    locations: true,
  };

  const keyText = (k) => (k.type === "Identifier" ? k.name : stringify(k.value));

  // An import declaration rebuilt on one line, so hoisting it keeps every line of the body where
  // the user wrote it (the original may span lines and hold comments).
  function importText(node) {
    const source = stringify(node.source.value);
    const attributes = node.attributes && node.attributes.length
      ? ` with { ${node.attributes.map((a) => `${keyText(a.key)}: ${stringify(a.value.value)}`).join(", ")} }`
      : "";
    if (node.specifiers.length === 0) return `import ${source}${attributes};`;
    const parts = [];
    const named = [];
    for (const s of node.specifiers) {
      if (s.type === "ImportDefaultSpecifier") parts.push(s.local.name);
      else if (s.type === "ImportNamespaceSpecifier") parts.push(`* as ${s.local.name}`);
      else named.push(`${keyText(s.imported)} as ${s.local.name}`);
    }
    if (named.length) parts.push(`{ ${named.join(", ")} }`);
    return `import ${parts.join(", ")} from ${source}${attributes};`;
  }

  const at = (node) => ({ line: node.loc.start.line, column: node.loc.start.column + 1 });
  const byPosition = (a, b) => a.line - b.line || a.column - b.column;

  // Every node, without recursion (deeply nested code must not overflow the stack here):
  // dynamic import() calls, and calls of a plain `require(...)`.
  function findCalls(root, topLevel) {
    const imports = [];
    const requires = [];
    let misplaced = null;
    const stack = [root];
    while (stack.length) {
      const node = stack.pop();
      if (topLevel && !topLevel.has(node) && (node.type === "ImportDeclaration"
          || node.type === "ExportNamedDeclaration" || node.type === "ExportDefaultDeclaration"
          || node.type === "ExportAllDeclaration") && node !== root.body[0]) {
        if (!misplaced || node.start < misplaced.start) misplaced = node;
      }
      if (node.type === "ImportExpression") {
        imports.push(at(node));
      } else if (node.type === "CallExpression" && node.callee.type === "Identifier"
                 && node.callee.name === "require") {
        requires.push(at(node));
      }
      for (const key in node) {
        const v = node[key];
        if (v === null || typeof v !== "object" || key === "loc") continue;
        if (Array.isArray(v)) {
          for (const item of v) if (item !== null && typeof item.type === "string") stack.push(item);
        } else if (typeof v.type === "string") {
          stack.push(v);
        }
      }
    }
    return { dynamicImports: imports.sort(byPosition), requires: requires.sort(byPosition), misplaced };
  }

  // The code's free references: every use of a name that no enclosing scope of the code declares
  // (a sandbox global, or a name that does not exist), with what the code does with it right
  // there: the property it reads (`inputs.rows`, `stream.first`), whether it calls it, the
  // call's first argument when that is a string literal, and whether `typeof` asks about it. Scopes follow the language: var and
  // function declarations belong to their function, let/const/class to their block; a function
  // declared in a block counts for its function too (web-compatible hoisting). `reachable` is false
  // for statements after a return, throw, break or continue in the same list. Recursive; null
  // when the code nests too deeply for the walk (then nothing is known).
  function freeReferences(ast) {
    const refs = [];
    const byNode = new Map();
    let reachable = true;
    const newScope = (parent) => ({ names: new Set(), parent });
    const declared = (scope, name) => {
      for (let s = scope; s !== null; s = s.parent) if (s.names.has(name)) return true;
      return false;
    };
    // The names a binding pattern declares.
    function bind(scope, p) {
      if (p === null) return;
      switch (p.type) {
        case "Identifier": scope.names.add(p.name); break;
        case "ObjectPattern": for (const q of p.properties) bind(scope, q.type === "RestElement" ? q.argument : q.value); break;
        case "ArrayPattern": for (const q of p.elements) bind(scope, q); break;
        case "RestElement": bind(scope, p.argument); break;
        case "AssignmentPattern": bind(scope, p.left); break;
      }
    }
    // The expressions inside a pattern (defaults, computed keys); `target`: its names are
    // assigned to, not declared, so they are uses too.
    function pattern(p, scope, target) {
      if (p === null) return;
      switch (p.type) {
        case "Identifier": if (target) visit(p, scope); break;
        case "ObjectPattern":
          for (const q of p.properties) {
            if (q.type === "RestElement") pattern(q.argument, scope, target);
            else { if (q.computed) visit(q.key, scope); pattern(q.value, scope, target); }
          }
          break;
        case "ArrayPattern": for (const q of p.elements) pattern(q, scope, target); break;
        case "RestElement": pattern(p.argument, scope, target); break;
        case "AssignmentPattern": pattern(p.left, scope, target); visit(p.right, scope); break;
        default: if (target) visit(p, scope); // a member expression being assigned
      }
    }
    const isFunction = (n) => n.type === "FunctionDeclaration" || n.type === "FunctionExpression"
      || n.type === "ArrowFunctionExpression";
    // var declarations and function declarations anywhere in a function's body but nested functions.
    function hoist(body, scope) {
      const stack = [body];
      while (stack.length) {
        const n = stack.pop();
        if (n.type === "VariableDeclaration" && n.kind === "var") for (const d of n.declarations) bind(scope, d.id);
        if (n.type === "FunctionDeclaration") { if (n.id) scope.names.add(n.id.name); continue; }
        if (isFunction(n) || n.type === "ClassBody") continue;
        for (const key in n) {
          const v = n[key];
          if (v === null || typeof v !== "object" || key === "loc") continue;
          if (Array.isArray(v)) { for (const c of v) if (c !== null && typeof c.type === "string") stack.push(c); }
          else if (typeof v.type === "string") stack.push(v);
        }
      }
    }
    function lexical(statements, scope) {
      for (const n of statements) {
        const d = n.type === "ExportNamedDeclaration" || n.type === "ExportDefaultDeclaration" ? n.declaration : n;
        if (d === null || d === undefined) continue;
        if (d.type === "VariableDeclaration" && d.kind !== "var") for (const x of d.declarations) bind(scope, x.id);
        else if ((d.type === "FunctionDeclaration" || d.type === "ClassDeclaration") && d.id) scope.names.add(d.id.name);
        else if (d.type === "ImportDeclaration") for (const s of d.specifiers) scope.names.add(s.local.name);
      }
    }
    function statements(list, scope) {
      lexical(list, scope);
      const was = reachable;
      for (const n of list) {
        if (n.type === "FunctionDeclaration") { const r = reachable; reachable = was; visit(n, scope); reachable = r; continue; }
        visit(n, scope);
        if (n.type === "ReturnStatement" || n.type === "ThrowStatement" || n.type === "BreakStatement"
            || n.type === "ContinueStatement") reachable = false;
      }
      reachable = was;
    }
    function fn(n, scope) {
      const s = newScope(scope);
      if (n.id && n.type !== "FunctionDeclaration") s.names.add(n.id.name);
      if (n.type !== "ArrowFunctionExpression") s.names.add("arguments");
      for (const p of n.params) bind(s, p);
      for (const p of n.params) pattern(p, s, false);
      if (n.body.type === "BlockStatement") {
        hoist(n.body, s);
        const was = reachable;
        reachable = true; // a function's body is as reachable as its calls; the walk cannot tell
        statements(n.body.body, s);
        reachable = was;
      } else {
        visit(n.body, s);
      }
    }
    const literal = (a) => a === undefined ? undefined
      : a.type === "Literal" && typeof a.value === "string" ? a.value
      : a.type === "TemplateLiteral" && a.expressions.length === 0 ? a.quasis[0].value.cooked
      : null;
    const propertyName = (m) => !m.computed ? m.property.name
      : (typeof literal(m.property) === "string" ? literal(m.property) : null);
    function children(n, scope) {
      for (const key in n) {
        const v = n[key];
        if (v === null || typeof v !== "object" || key === "loc") continue;
        if (Array.isArray(v)) { for (const c of v) if (c !== null && typeof c.type === "string") visit(c, scope); }
        else if (typeof v.type === "string") visit(v, scope);
      }
    }
    function visit(n, scope) {
      switch (n.type) {
        case "Identifier":
          if (!declared(scope, n.name)) {
            const r = { name: n.name, line: n.loc.start.line, column: n.loc.start.column + 1, reachable };
            refs.push(r);
            byNode.set(n, r);
          }
          return;
        case "Program": hoist(n, scope); statements(n.body, scope); return;
        case "BlockStatement": case "StaticBlock": statements(n.body, newScope(scope)); return;
        case "FunctionDeclaration": case "FunctionExpression": case "ArrowFunctionExpression": fn(n, scope); return;
        case "ClassDeclaration": case "ClassExpression": {
          const s = newScope(scope);
          if (n.id) s.names.add(n.id.name);
          if (n.superClass) visit(n.superClass, scope);
          for (const m of n.body.body) {
            if (m.type === "StaticBlock") { visit(m, s); continue; }
            if (m.computed) visit(m.key, s);
            if (m.value) visit(m.value, s);
          }
          return;
        }
        case "VariableDeclaration":
          for (const d of n.declarations) { pattern(d.id, scope, false); if (d.init) visit(d.init, scope); }
          return;
        case "ForStatement": case "ForInStatement": case "ForOfStatement": {
          const s = newScope(scope);
          const head = n.type === "ForStatement" ? n.init : n.left;
          if (head && head.type === "VariableDeclaration") {
            if (head.kind !== "var") for (const d of head.declarations) bind(s, d.id);
            visit(head, s);
          } else if (head) {
            if (n.type === "ForStatement") visit(head, s); else pattern(head, s, true);
          }
          for (const key of ["test", "update", "right"]) if (n[key]) visit(n[key], s);
          visit(n.body, s);
          return;
        }
        case "CatchClause": {
          const s = newScope(scope);
          if (n.param) { bind(s, n.param); pattern(n.param, s, false); }
          visit(n.body, s);
          return;
        }
        case "SwitchStatement": {
          visit(n.discriminant, scope);
          const s = newScope(scope);
          for (const c of n.cases) lexical(c.consequent, s);
          for (const c of n.cases) { if (c.test) visit(c.test, s); statements(c.consequent, s); }
          return;
        }
        case "AssignmentExpression": pattern(n.left, scope, true); visit(n.right, scope); return;
        case "MemberExpression": {
          visit(n.object, scope);
          if (n.computed) visit(n.property, scope);
          const r = byNode.get(n.object);
          if (r !== undefined && r.property === undefined) r.property = propertyName(n);
          return;
        }
        case "CallExpression": {
          children(n, scope);
          const callee = n.callee.type === "ChainExpression" ? n.callee.expression : n.callee;
          const r = byNode.get(callee.type === "MemberExpression" ? callee.object : callee);
          if (r !== undefined && !r.called) {
            r.called = true;
            const a = literal(n.arguments[0]);
            if (typeof a === "string") r.argument = a;
            else if (a === null) r.dynamicArgument = true;
          }
          return;
        }
        case "Property": case "PropertyDefinition": case "MethodDefinition":
          if (n.computed) visit(n.key, scope);
          if (n.value) visit(n.value, scope);
          return;
        case "UnaryExpression":
          visit(n.argument, scope);
          if (n.operator === "typeof" && byNode.has(n.argument)) byNode.get(n.argument).typeof = true;
          return;
        case "LabeledStatement": visit(n.body, scope); return;
        case "BreakStatement": case "ContinueStatement": case "MetaProperty": case "ImportDeclaration":
          return;
        case "ExportNamedDeclaration":
          if (n.declaration) visit(n.declaration, scope);
          else if (!n.source) for (const s of n.specifiers) visit(s.local, scope);
          return;
        case "ExportAllDeclaration": return;
        case "IfStatement":
          visit(n.test, scope);
          if (n.test.type === "Literal" && !n.test.value) {
            const was = reachable; reachable = false; visit(n.consequent, scope); reachable = was;
            if (n.alternate) visit(n.alternate, scope);
            return;
          }
          visit(n.consequent, scope);
          if (n.alternate) visit(n.alternate, scope);
          return;
        default: children(n, scope);
      }
    }
    try {
      visit(ast, newScope(null));
    } catch (e) {
      if (e instanceof RangeError) return null;
      throw e;
    }
    return refs;
  }

  // Line and column (1-based) of an offset in the code.
  function locate(code, pos) {
    let line = 1;
    let lineStart = 0;
    for (let i = 0; i < pos; i++) {
      const c = code.charCodeAt(i);
      if (c === 13 && code.charCodeAt(i + 1) === 10) continue;
      if (c === 10 || c === 13 || c === 0x2028 || c === 0x2029) {
        line++;
        lineStart = i + 1;
      }
    }
    return { line, column: pos - lineStart + 1 };
  }

  // The error acorn threw, in the user's coordinates (`open` characters of wrapper come before
  // the code). A position past the code, in the wrapper's closing, is the end of the code.
  function failure(e, code, open) {
    if (!(e instanceof SyntaxError) || typeof e.pos !== "number") throw e;
    let pos = Math.max(0, e.pos - open);
    let message = e.message.replace(/ \(\d+:\d+\)$/, "");
    const atEnd = pos >= code.length;
    if (atEnd) {
      pos = code.length;
      message = "Unexpected end of input";
    }
    const { line, column } = locate(code, pos);
    return { pos, atEnd, line, column, message: `${message} (line ${line}, column ${column})` };
  }

  // Whether `fn` is the wrapper's function itself, its body exactly the braces the wrapper put
  // around the code: else the code closed the wrapper and opened code of its own after it.
  const isWrapper = (fn, open, code) => fn && (fn.type === "FunctionExpression")
    && fn.body.start === open.lastIndexOf("{") && fn.body.end === open.length + code.length + 2;

  // The code closed the wrapper's function early: its `}` there is the error.
  const notWrapped = (fn, open, code) => {
    const e = new SyntaxError("Unexpected token '}'");
    e.pos = fn && fn.body ? fn.body.end - 1 : open.length + code.length;
    return e;
  };

  // Maps node positions of a wrapped parse back to the code.
  const shifted = (positions, shift) => positions.map((p) =>
    (p.line === 1 ? { ...p, line: 1, column: p.column - shift } : p));
  // The free references of a parse when they were asked for (undefined otherwise).
  const referencesOf = (ast, wanted, shift) => {
    if (!wanted) return undefined;
    const refs = freeReferences(ast);
    return refs === null ? null : shifted(refs, shift);
  };

  // The code as the body of the script wrapper: what runs when it holds no import or export.
  function asScript(code, open, close, wanted) {
    const ast = acorn.parse(open + code + close, { ecmaVersion: "latest", sourceType: "script",
                                                   locations: true });
    const stmt = ast.body.length === 1 ? ast.body[0] : null;
    if (!stmt || stmt.type !== "ExpressionStatement" || !isWrapper(stmt.expression, open, code)) {
      throw notWrapped(stmt && stmt.expression, open, code);
    }
    const calls = findCalls(ast);
    return { script: true, imports: [], hoisted: "", hasExports: false,
             dynamicImports: shifted(calls.dynamicImports, open.length),
             requires: shifted(calls.requires, open.length),
             references: referencesOf(ast, wanted, open.length) };
  }

  // The code as the body of the module wrapper, import and export declarations allowed at its
  // top level only (they are hoisted out of it, or the code runs as written).
  function asModule(code, open, close, wanted) {
    const ast = acorn.parse(open + code + close, { ecmaVersion: "latest", sourceType: "module",
                                                   allowImportExportEverywhere: true,
                                                   locations: true });
    const stmt = ast.body.length === 1 ? ast.body[0] : null;
    const call = stmt && stmt.type === "ExportDefaultDeclaration"
      && stmt.declaration.type === "AwaitExpression" ? stmt.declaration.argument : null;
    if (!call || call.type !== "CallExpression" || !isWrapper(call.callee, open, code)) {
      throw notWrapped(call && call.callee, open, code);
    }
    const top = call.callee.body.body;
    const imports = [];
    let hoisted = "";
    let hasExports = false;
    for (const node of top) {
      if (node.type === "ImportDeclaration") {
        const line = node.loc.start.line;
        imports.push({
          specifier: node.source.value,
          line,
          column: node.loc.start.column + 1 - (line === 1 ? open.length : 0),
          start: node.start - open.length,
          end: node.end - open.length,
        });
        hoisted += importText(node);
      } else if (node.type === "ExportNamedDeclaration" || node.type === "ExportDefaultDeclaration"
                 || node.type === "ExportAllDeclaration") {
        hasExports = true;
      }
    }
    const calls = findCalls(ast, new Set(top));
    if (calls.misplaced) {
      const e = new SyntaxError("'import' and 'export' may only appear at the top level");
      e.pos = calls.misplaced.start;
      throw e;
    }
    return { script: false, imports, hoisted, hasExports,
             dynamicImports: shifted(calls.dynamicImports, open.length),
             requires: shifted(calls.requires, open.length),
             references: referencesOf(ast, wanted, open.length) };
  }

  // The code as written, a module: code with a top-level export runs so.
  function asWritten(code, wanted) {
    const ast = acorn.parse(code, options);
    const imports = [];
    let hasExports = false;
    let firstExport = null;
    for (const node of ast.body) {
      if (node.type === "ImportDeclaration") {
        imports.push({ specifier: node.source.value, line: node.loc.start.line,
                       column: node.loc.start.column + 1, start: node.start, end: node.end });
      } else if (node.type === "ExportNamedDeclaration" || node.type === "ExportDefaultDeclaration"
                 || node.type === "ExportAllDeclaration") {
        hasExports = true;
        if (firstExport === null) firstExport = at(node);
        if (node.source) {
          // export ... from "x": a static dependency like an import
          imports.push({ specifier: node.source.value, line: node.loc.start.line,
                         column: node.loc.start.column + 1, start: node.start, end: node.end });
        }
      }
    }
    const calls = findCalls(ast);
    return { script: false, imports, hoisted: "", hasExports, firstExport,
             dynamicImports: calls.dynamicImports, requires: calls.requires,
             references: referencesOf(ast, wanted, 0) };
  }

  // The names a binding pattern declares.
  function boundNames(pattern, out) {
    if (!pattern) return out;
    switch (pattern.type) {
      case "Identifier": out.push(pattern.name); break;
      case "ObjectPattern":
        for (const p of pattern.properties) boundNames(p.type === "RestElement" ? p.argument : p.value, out);
        break;
      case "ArrayPattern": for (const e of pattern.elements) boundNames(e, out); break;
      case "AssignmentPattern": boundNames(pattern.left, out); break;
      case "RestElement": boundNames(pattern.argument, out); break;
      default: break;
    }
    return out;
  }

  // A session call's code (host/SessionEntry.java): the body of the script wrapper whose top-level
  // declarations must outlive the call. Each let/const/var/class declaration becomes an assignment
  // to a global binding the host declares first (`let x = 1` reads `;(x = 1)`), function
  // declarations stay where they are and are bound to globals when the call starts; everything
  // else is untouched, so return and await work as in a run. Returns JSON: {syntaxError} or
  // {code, lexical, vars, functions}.
  function session(code, open, close) {
    let ast;
    try {
      ast = acorn.parse(open + code + close, { ecmaVersion: "latest", sourceType: "script",
                                               locations: true });
      const stmt = ast.body.length === 1 ? ast.body[0] : null;
      if (!stmt || stmt.type !== "ExpressionStatement" || !isWrapper(stmt.expression, open, code)) {
        throw notWrapped(stmt && stmt.expression, open, code);
      }
    } catch (e) {
      const f = failure(e, code, open.length);
      let message = f.message;
      if (/'import' and 'export' may (only )?appear/.test(message)) {
        message = `a session call cannot import or export: declare what later calls need at the top level (${message})`;
      }
      return stringify({ syntaxError: { message, line: f.line, column: f.column } });
    }
    const top = ast.body[0].expression.body.body;
    const edits = []; // [position in code, characters to remove, text to insert]
    const lexical = [];
    const vars = [];
    const functions = [];
    for (const node of top) {
      const start = node.start - open.length;
      const end = node.end - open.length;
      if (node.type === "VariableDeclaration" && node.kind !== "using" && node.kind !== "await using") {
        edits.push([start, node.kind.length, ";(" + " ".repeat(node.kind.length - 2)]);
        for (const d of node.declarations) {
          boundNames(d.id, node.kind === "var" ? vars : lexical);
          if (!d.init && node.kind !== "var") edits.push([d.id.end - open.length, 0, " = void 0"]);
        }
        const last = node.declarations[node.declarations.length - 1];
        edits.push([last.end - open.length, 0, ")"]);
      } else if (node.type === "ClassDeclaration") {
        lexical.push(node.id.name);
        edits.push([start, 0, `;(${node.id.name} = `]);
        edits.push([end, 0, ");"]);
      } else if (node.type === "FunctionDeclaration") {
        functions.push(node.id.name);
      }
    }
    // From the end back; of two edits at one place, the later one first, so the earlier one's
    // text comes first (`x = void 0` before the closing parenthesis).
    edits.forEach((e, i) => e.push(i));
    edits.sort((a, b) => b[0] - a[0] || b[3] - a[3]);
    let out = code;
    for (const [at, remove, text] of edits) out = out.slice(0, at) + text + out.slice(at + remove);
    return stringify({ code: out, lexical, vars, functions });
  }

  // Script or module is decided by the parse: code that is a valid body of the script wrapper
  // runs as a script (whatever its comments and strings say); else code whose top level declares
  // imports runs as a module with them hoisted; code with a top-level export runs as written. When
  // nothing parses, the error of the reading that got furthest is reported.
  function analyze(code, scriptOpen, scriptClose, moduleOpen, moduleClose, wanted) {
    const body = code.startsWith("#!") ? code.replace(/^#![^\n\r\u2028\u2029]*/, (m) => " ".repeat(m.length)) : code;
    const errors = [];
    try {
      return stringify(asScript(body, scriptOpen, scriptClose, wanted));
    } catch (e) {
      errors.push(failure(e, body, scriptOpen.length));
    }
    try {
      const m = asModule(body, moduleOpen, moduleClose, wanted);
      if (!m.hasExports) return stringify(m);
    } catch (e) {
      errors.push(failure(e, body, moduleOpen.length));
    }
    try {
      const w = asWritten(code, wanted);
      if (w.hasExports) return stringify(w);
    } catch (e) {
      errors.push({ ...failure(e, code, 0), written: true });
    }
    // A wrapped reading that ran into the wrapper's closing may only mean the code closed the
    // wrapper's brace itself: the reading as written then names the stray token.
    const written = errors.find((e) => e.written);
    const inside = written && written.pos < code.length;
    let best = null;
    for (const e of errors) {
      if (inside && e.atEnd) continue;
      if (best === null || e.pos > best.pos) best = e;
    }
    return stringify({ syntaxError: { message: best.message, line: best.line, column: best.column } });
  }
  analyze.session = session;
  return analyze;
})()
