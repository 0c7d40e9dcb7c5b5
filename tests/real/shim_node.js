// tests/real/shim_app.py's app for Node's own `http` server: a deterministic fake model behind
// OpenAI chat completions and Anthropic Messages, plain and streamed (tests/real/
// test_real_servers.py). Node frames a res.write() body as chunked, says `Connection:
// keep-alive` with `Keep-Alive: timeout=N`, and closes an idle kept-alive connection after its
// keepAliveTimeout (argv[3], ms). The policy: while no tool result follows the last user
// message, call the first offered tool (arguments from its JSON Schema and the user's words),
// then answer in text quoting the results. Modes (a first path segment joined by "+"):
// crlf (SSE lines end in CRLF), close (`Connection: close`), interim (a `100 Continue` and a
// `103 Early Hints` before every model answer).
"use strict";
const http = require("http");

const port = Number(process.argv[2]);
const keepAliveMs = Number(process.argv[3] || 5000);
const MODES = new Set(["crlf", "close", "interim"]);

function split(path) {
  const parts = path.replace(/^\/+/, "").split("/");
  const words = parts[0].split("+");
  if (parts[0] && words.every((w) => MODES.has(w))) {
    return [new Set(words), "/" + parts.slice(1).join("/")];
  }
  return [new Set(), path];
}

function text(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((b) => (b && (b.text || (typeof b.content === "string" ? b.content : "")) || "")).join(" ");
}

function args(schema, said) {
  const out = {};
  const props = (schema && schema.properties) || {};
  const number = (said.match(/\d+/) || ["1"])[0];
  for (const name of Object.keys(props)) {
    const p = props[name] || {};
    if (Array.isArray(p.enum) && p.enum.length) out[name] = p.enum[0];
    else if (p.type === "integer" || p.type === "number") out[name] = Number(number);
    else if (p.type === "boolean") out[name] = false;
    else if (p.type === "array") out[name] = [];
    else if (p.type === "object") out[name] = {};
    else out[name] = /_id$/.test(name) ? number : said;
  }
  return out;
}

// -> {call: [name, arguments] | null, text, said}
function decide(messages, tools, choice, anthropic) {
  let lastUser = -1;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    const isResult = anthropic && Array.isArray(m.content) && m.content.some((b) => b.type === "tool_result");
    if (m.role === "user" && !isResult) lastUser = i;
  }
  const said = lastUser >= 0 ? text(messages[lastUser].content) : "";
  const after = messages.slice(lastUser + 1);
  const results = after.filter((m) => m.role === "tool" || (anthropic && m.role === "user")).map((m) => text(m.content));
  if (tools.length && !results.length && choice !== "none") {
    const [name, schema] = tools[0];
    return { call: [name, args(schema, said)], text: "", said };
  }
  return { call: null, text: "Here is what I found: " + results.join(" ").slice(0, 300), said };
}

function sse(data, event, crlf) {
  const nl = crlf ? "\r\n" : "\n";
  const payload = typeof data === "string" ? data : JSON.stringify(data);
  return (event ? `event: ${event}${nl}` : "") + `data: ${payload}${nl}${nl}`;
}

function openai(body, crlf) {
  const tools = (body.tools || []).map((t) => [t.function.name, t.function.parameters]);
  const d = decide(body.messages || [], tools, body.tool_choice, false);
  const usage = { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25 };
  const base = { id: "chatcmpl-node", object: "chat.completion", created: 0, model: body.model };
  const call = d.call && { id: "call_node_1", type: "function", function: { name: d.call[0], arguments: JSON.stringify(d.call[1]) } };
  const finish = call ? "tool_calls" : "stop";
  const message = { role: "assistant", content: call ? null : d.text };
  if (call) message.tool_calls = [call];
  const whole = { ...base, choices: [{ index: 0, message, finish_reason: finish }], usage };
  if (body.stream !== true) return [whole, null];
  const chunk = { ...base, object: "chat.completion.chunk" };
  const events = [sse({ ...chunk, choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] }, null, crlf)];
  if (call) {
    const a = call.function.arguments;
    const half = Math.floor(a.length / 2);
    events.push(sse({ ...chunk, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: call.id, type: "function", function: { name: call.function.name, arguments: a.slice(0, half) } }] }, finish_reason: null }] }, null, crlf));
    events.push(sse({ ...chunk, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: a.slice(half) } }] }, finish_reason: null }] }, null, crlf));
  } else {
    for (let i = 0; i < d.text.length; i += 16) {
      events.push(sse({ ...chunk, choices: [{ index: 0, delta: { content: d.text.slice(i, i + 16) }, finish_reason: null }] }, null, crlf));
    }
  }
  events.push(sse({ ...chunk, choices: [{ index: 0, delta: {}, finish_reason: finish }] }, null, crlf));
  events.push(sse({ ...chunk, choices: [], usage }, null, crlf));
  events.push(sse("[DONE]", null, crlf));
  return [null, events];
}

function anthropic(body, crlf) {
  const tools = (body.tools || []).map((t) => [t.name, t.input_schema]);
  const choice = body.tool_choice && body.tool_choice.type === "none" ? "none" : "auto";
  const d = decide(body.messages || [], tools, choice, true);
  const usage = { input_tokens: 20, output_tokens: 5 };
  const block = d.call ? { type: "tool_use", id: "toolu_node_1", name: d.call[0], input: d.call[1] } : { type: "text", text: d.text };
  const stop = d.call ? "tool_use" : "end_turn";
  const whole = { id: "msg_node", type: "message", role: "assistant", model: body.model, content: [block], stop_reason: stop, stop_sequence: null, usage };
  if (body.stream !== true) return [whole, null];
  const events = [sse({ type: "message_start", message: { ...whole, content: [], stop_reason: null, usage: { input_tokens: 20, output_tokens: 0 } } }, "message_start", crlf)];
  if (d.call) {
    events.push(sse({ type: "content_block_start", index: 0, content_block: { ...block, input: {} } }, "content_block_start", crlf));
    events.push(sse({ type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: JSON.stringify(d.call[1]) } }, "content_block_delta", crlf));
  } else {
    events.push(sse({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }, "content_block_start", crlf));
    events.push(sse({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: d.text } }, "content_block_delta", crlf));
  }
  events.push(sse({ type: "content_block_stop", index: 0 }, "content_block_stop", crlf));
  events.push(sse({ type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 5 } }, "message_delta", crlf));
  events.push(sse({ type: "message_stop" }, "message_stop", crlf));
  return [null, events];
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const [modes, path] = split(req.url);
    if (modes.has("close")) res.setHeader("Connection", "close");
    const json = (status, payload) => {
      const data = Buffer.from(JSON.stringify(payload));
      res.writeHead(status, { "Content-Type": "application/json", "Content-Length": data.length });
      res.end(data);
    };
    if (req.method === "GET" && (path === "/health" || path === "/v1/models")) {
      return json(200, path === "/health" ? { status: "ok" } : { object: "list", data: [{ id: "shim", object: "model", owned_by: "shim" }] });
    }
    const isAnthropic = path === "/v1/messages";
    if (req.method !== "POST" || !(isAnthropic || path === "/v1/chat/completions")) {
      return json(404, { error: { message: `no route ${req.method} ${path}` } });
    }
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch (e) {
      return json(400, { error: { message: "the body is not JSON" } });
    }
    if (modes.has("interim")) {
      res.writeContinue();
      res.writeEarlyHints({ link: "</style.css>; rel=preload; as=style" });
    }
    const [whole, events] = (isAnthropic ? anthropic : openai)(body, modes.has("crlf"));
    if (whole) return json(200, whole);
    res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" });
    for (const event of events) res.write(event);
    res.end();
  });
});
server.keepAliveTimeout = keepAliveMs;
server.listen(port, "127.0.0.1");
