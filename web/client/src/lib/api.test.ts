import { ApiError, apiRequest, attachmentName, errorMessage, fetchFile } from "./api";

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

describe("fetchFile", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("reads the body and the name the server gives the attachment", async () => {
    vi.stubGlobal(
      "fetch",
      vi.fn(async () => new Response('{"a":1}', { status: 200, headers: { "Content-Disposition": 'attachment; filename="papertide-data-2026-11-28.json"' } })),
    );
    const file = await fetchFile("/api/users/u1/export", "fallback.json");
    expect(file.filename).toBe("papertide-data-2026-11-28.json");
    expect(await file.blob.text()).toBe('{"a":1}');
  });

  it("raises ApiError with the server's body when refused", async () => {
    vi.stubGlobal("fetch", vi.fn(async () => new Response('{"code":"not_your_account","message":"No."}', { status: 403 })));
    const failure = await fetchFile("/api/users/u2/export", "x.json").catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApiError);
    expect(errorMessage(failure, "")).toBe("No.");
  });
});

describe("attachmentName", () => {
  it("takes the quoted, bare or encoded file name, never a path", () => {
    expect(attachmentName('attachment; filename="papertide-data-2026-11-28.json"')).toBe("papertide-data-2026-11-28.json");
    expect(attachmentName("attachment; filename=data.json")).toBe("data.json");
    expect(attachmentName("attachment; filename*=UTF-8''my%20data.json")).toBe("my data.json");
    expect(attachmentName('attachment; filename="../../etc/passwd"')).toBe("passwd");
    expect(attachmentName("attachment")).toBeNull();
    expect(attachmentName(null)).toBeNull();
  });
});
