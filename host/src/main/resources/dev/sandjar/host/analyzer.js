// Reads guest code with acorn, inside the sandbox's analysis engine (see host/CodeAnalyzer.java).
// The code is only data here: nothing of it runs. Evaluated after acorn.js; its completion value is
// analyze(code, scriptOpen, scriptClose, moduleOpen, moduleClose) (the entry wrappers of
// host/EntryModule.java), which returns JSON: either {syntaxError} or {script, imports, hoisted,
// hasExports, dynamicImports, requires}.
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
    (p.line === 1 ? { line: 1, column: p.column - shift } : p));

  // The code as the body of the script wrapper: what runs when it holds no import or export.
  function asScript(code, open, close) {
    const ast = acorn.parse(open + code + close, { ecmaVersion: "latest", sourceType: "script",
                                                   locations: true });
    const stmt = ast.body.length === 1 ? ast.body[0] : null;
    if (!stmt || stmt.type !== "ExpressionStatement" || !isWrapper(stmt.expression, open, code)) {
      throw notWrapped(stmt && stmt.expression, open, code);
    }
    const calls = findCalls(ast);
    return { script: true, imports: [], hoisted: "", hasExports: false,
             dynamicImports: shifted(calls.dynamicImports, open.length),
             requires: shifted(calls.requires, open.length) };
  }

  // The code as the body of the module wrapper, import and export declarations allowed at its
  // top level only (they are hoisted out of it, or the code runs as written).
  function asModule(code, open, close) {
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
             requires: shifted(calls.requires, open.length) };
  }

  // The code as written, a module: code with a top-level export runs so.
  function asWritten(code) {
    const ast = acorn.parse(code, options);
    const imports = [];
    let hasExports = false;
    for (const node of ast.body) {
      if (node.type === "ImportDeclaration") {
        imports.push({ specifier: node.source.value, line: node.loc.start.line,
                       column: node.loc.start.column + 1, start: node.start, end: node.end });
      } else if (node.type === "ExportNamedDeclaration" || node.type === "ExportDefaultDeclaration"
                 || node.type === "ExportAllDeclaration") {
        hasExports = true;
        if (node.source) {
          // export ... from "x": a static dependency like an import
          imports.push({ specifier: node.source.value, line: node.loc.start.line,
                         column: node.loc.start.column + 1, start: node.start, end: node.end });
        }
      }
    }
    const calls = findCalls(ast);
    return { script: false, imports, hoisted: "", hasExports,
             dynamicImports: calls.dynamicImports, requires: calls.requires };
  }

  // Script or module is decided by the parse: code that is a valid body of the script wrapper
  // runs as a script (whatever its comments and strings say); else code whose top level declares
  // imports runs as a module with them hoisted; code with a top-level export runs as written. When
  // nothing parses, the error of the reading that got furthest is reported.
  return function analyze(code, scriptOpen, scriptClose, moduleOpen, moduleClose) {
    const body = code.startsWith("#!") ? code.replace(/^#![^\n\r\u2028\u2029]*/, (m) => " ".repeat(m.length)) : code;
    const errors = [];
    try {
      return stringify(asScript(body, scriptOpen, scriptClose));
    } catch (e) {
      errors.push(failure(e, body, scriptOpen.length));
    }
    try {
      const m = asModule(body, moduleOpen, moduleClose);
      if (!m.hasExports) return stringify(m);
    } catch (e) {
      errors.push(failure(e, body, moduleOpen.length));
    }
    try {
      const w = asWritten(code);
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
  };
})()
