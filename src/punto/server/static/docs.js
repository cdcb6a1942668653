// punto: the API documentation (Swagger UI, served by this server itself).
// No validator badge: it would ask a host on the internet about our schema.
"use strict";
window.addEventListener("DOMContentLoaded", () => {
  window.ui = window.SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#swagger-ui",
    validatorUrl: null,
    deepLinking: true,
  });
});
