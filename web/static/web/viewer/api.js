// The REST API as the viewer uses it: same-origin session auth, CSRF on writes, and the
// API's one error format (an RFC 9457 problem: {"title", "status", "detail", "code",
// "errors": [{"field", "message"}]}) turned into an Error saying every field at fault.

function csrfToken() {
  const input = document.querySelector("input[name=csrfmiddlewaretoken]");
  return input ? input.value : "";
}

async function answer(response) {
  if (response.status === 204) return null;
  const body = await response.json().catch(() => null);
  if (!response.ok) {
    const problem = body && typeof body.detail === "string" ? body : null;
    const error = new Error(problem ? problem.detail : `HTTP ${response.status}`);
    error.status = response.status;
    error.code = problem ? problem.code : `http_${response.status}`;
    error.errors = problem && Array.isArray(problem.errors) ? problem.errors : [];
    throw error;
  }
  return body;
}

export async function getJSON(url, params = {}) {
  const query = new URLSearchParams(params).toString();
  const response = await fetch(query ? `${url}?${query}` : url, {
    credentials: "same-origin",
    headers: { Accept: "application/json" },
  });
  return answer(response);
}

export async function postJSON(url, body = {}) {
  return sendJSON("POST", url, body);
}

// A write with any method (POST, PUT, DELETE); a DELETE sends no body.
export async function sendJSON(method, url, body = {}) {
  const response = await fetch(url, {
    method,
    credentials: "same-origin",
    headers: {
      Accept: "application/json",
      "Content-Type": "application/json",
      "X-CSRFToken": csrfToken(),
    },
    body: method === "DELETE" ? undefined : JSON.stringify(body),
  });
  return answer(response);
}

// A list endpoint's items, whether it pages (limit/offset: {results}) or not.
export function itemsOf(body) {
  return Array.isArray(body) ? body : (body && body.results) || [];
}

// An element with attributes and children (strings become text: nothing is parsed as HTML).
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}
