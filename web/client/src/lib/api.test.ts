import { ApiError, apiRequest, errorMessage } from "./api";

function respond(status: number, body: string, statusText = "") {
  vi.stubGlobal("fetch", vi.fn(async () => new Response(body || null, { status, statusText })));
}

async function failure(request: Promise<unknown>): Promise<ApiError> {
  try {
    await request;
  } catch (error) {
    return error as ApiError;
  }
  throw new Error("the request did not fail");
}

describe("apiRequest", () => {
  it("sends credentials and JSON", async () => {
    const fetchMock = vi.fn(async () => new Response('{"ok":true}', { status: 200 }));
    vi.stubGlobal("fetch", fetchMock);
    await apiRequest("POST", "/api/x", { a: 1 });
    expect(fetchMock).toHaveBeenCalledWith("/api/x", expect.objectContaining({
      method: "POST",
      credentials: "include",
      body: '{"a":1}',
      headers: { "Content-Type": "application/json" },
    }));
  });

  it("raises status: JSON body for a JSON error", async () => {
    respond(400, '{"message":"Password is required"}');
    const error = await failure(apiRequest("GET", "/api/x"));
    expect(error).toBeInstanceOf(ApiError);
    expect(error.message).toBe('400: {"message":"Password is required"}');
    expect(errorMessage(error, "fallback")).toBe("Password is required");
  });

  it("uses the text, or the status text when the body is empty", async () => {
    respond(502, "Bad gateway from proxy");
    expect((await failure(apiRequest("GET", "/x"))).message).toBe('502: "Bad gateway from proxy"');
    respond(503, "", "Service Unavailable");
    expect((await failure(apiRequest("GET", "/x"))).message).toBe('503: "Service Unavailable"');
    expect(errorMessage(new Error("boom"), "fallback")).toBe("fallback");
  });
});
