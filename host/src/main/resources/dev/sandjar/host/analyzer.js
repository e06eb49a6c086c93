// Reads guest code with acorn, inside the sandbox's analysis engine (see host/CodeAnalyzer.java).
// The code is only data here: nothing of it runs. Evaluated after acorn.js; its completion value is
// analyze(code), which returns JSON: either {syntaxError} or {imports, hoisted, hasExports,
// dynamicImports}.
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
  function findCalls(root) {
    const imports = [];
    const requires = [];
    const stack = [root];
    while (stack.length) {
      const node = stack.pop();
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
    return { dynamicImports: imports.sort(byPosition), requires: requires.sort(byPosition) };
  }

  return function analyze(code) {
    let ast;
    try {
      ast = acorn.parse(code, options);
    } catch (e) {
      if (e instanceof SyntaxError && e.loc) {
        const line = e.loc.line;
        const column = e.loc.column + 1;
        const message = `${e.message.replace(/ \(\d+:\d+\)$/, "")} (line ${line}, column ${column})`;
        return stringify({ syntaxError: { message, line, column } });
      }
      throw e;
    }
    const imports = [];
    let hoisted = "";
    let hasExports = false;
    for (const node of ast.body) {
      if (node.type === "ImportDeclaration") {
        imports.push({
          specifier: node.source.value,
          line: node.loc.start.line,
          column: node.loc.start.column + 1,
          start: node.start,
          end: node.end,
        });
        hoisted += importText(node);
      } else if (node.type === "ExportNamedDeclaration" || node.type === "ExportDefaultDeclaration"
                 || node.type === "ExportAllDeclaration") {
        hasExports = true;
        if (node.source) {
          // export ... from "x": a static dependency like an import (never hoisted: a module
          // with exports runs as written).
          imports.push({
            specifier: node.source.value,
            line: node.loc.start.line,
            column: node.loc.start.column + 1,
            start: node.start,
            end: node.end,
          });
        }
      }
    }
    const calls = findCalls(ast);
    return stringify({ imports, hoisted, hasExports, dynamicImports: calls.dynamicImports,
                       requires: calls.requires });
  };
})()
