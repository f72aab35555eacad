package io.cyclium.it;

import io.cyclium.api.CycliumApi;
import jakarta.servlet.annotation.WebServlet;
import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.QueryParam;
import java.io.File;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Every JAX-RS resource method of the API, and every {@code doPost}-style method of a servlet
 * mapped under {@code /api} (the event intake), found by reflection over the compiled classes of
 * {@code io.cyclium.api} (so a new resource is found without anyone listing it).
 */
public final class ApiOperations {

    /**
     * One operation: {@code method} in lower case, {@code path} relative to /api with a leading
     * slash, the names of its query parameters, and whether it reads a request body.
     */
    public record Operation(String method, String path, List<String> queryParams, boolean takesBody) {

        /** The path with every {@code {param}} replaced by {@code value}. */
        public String pathWith(String value) {
            return path.replaceAll("\\{[^}]+}", value);
        }

        @Override
        public String toString() {
            return method.toUpperCase(Locale.ROOT) + " " + path;
        }
    }

    private ApiOperations() {
    }

    public static List<Operation> all() {
        List<Operation> operations = new ArrayList<>();
        for (Class<?> resource : resourceClasses()) {
            String base = resource.getAnnotation(Path.class).value();
            for (Method m : resource.getMethods()) {
                String http = httpMethod(m);
                Path sub = m.getAnnotation(Path.class);
                if (http == null && sub != null) {
                    throw new IllegalStateException("sub-resource locator " + m + ": teach ApiOperations to follow it");
                }
                if (http != null) {
                    List<String> query = Arrays.stream(m.getParameters()).filter(p -> p.isAnnotationPresent(QueryParam.class))
                            .map(p -> p.getAnnotation(QueryParam.class).value()).toList();
                    // JAX-RS hands the request body to the one parameter without an annotation
                    boolean body = Arrays.stream(m.getParameters()).anyMatch(p -> p.getAnnotations().length == 0);
                    operations.add(new Operation(http.toLowerCase(Locale.ROOT), join(base, sub == null ? "" : sub.value()), query,
                            body));
                }
            }
        }
        for (Class<?> servlet : classes(c -> c.isAnnotationPresent(WebServlet.class))) {
            for (String pattern : servlet.getAnnotation(WebServlet.class).urlPatterns()) {
                if (!pattern.startsWith("/api/")) {
                    continue;
                }
                for (Method m : servlet.getDeclaredMethods()) {
                    String http = SERVLET_METHODS.get(m.getName());
                    if (http != null) {
                        operations.add(new Operation(http, pattern.substring("/api".length()), List.of(),
                                Set.of("post", "put", "patch").contains(http)));
                    }
                }
            }
        }
        if (operations.size() < 10) {
            throw new IllegalStateException("found only " + operations + ": is the class scan broken?");
        }
        return operations;
    }

    private static final Map<String, String> SERVLET_METHODS = Map.of("doGet", "get", "doPost", "post", "doPut", "put",
            "doDelete", "delete", "doPatch", "patch");

    private static String httpMethod(Method m) {
        for (Annotation a : m.getAnnotations()) {
            HttpMethod h = a.annotationType().getAnnotation(HttpMethod.class);
            if (h != null) {
                return h.value();
            }
        }
        return null;
    }

    /** Joins JAX-RS path fragments; {@code {id: regex}} templates become {@code {id}}. */
    static String join(String base, String sub) {
        String joined = ("/" + base + "/" + sub).replaceAll("/+", "/").replaceAll("\\{\\s*([^}:\\s]+)\\s*(:[^}]*)?}", "{$1}");
        return joined.length() > 1 && joined.endsWith("/") ? joined.substring(0, joined.length() - 1) : joined;
    }

    private static List<Class<?>> resourceClasses() {
        return classes(c -> c.isAnnotationPresent(Path.class));
    }

    private static List<Class<?>> classes(Predicate<Class<?>> which) {
        File dir;
        try {
            dir = new File(new File(CycliumApi.class.getProtectionDomain().getCodeSource().getLocation().toURI()),
                    CycliumApi.class.getPackageName().replace('.', '/'));
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        File[] files = dir.listFiles((d, name) -> name.endsWith(".class"));
        if (files == null) {
            throw new IllegalStateException("cannot list " + dir + ": run from the module's compiled classes");
        }
        List<Class<?>> resources = new ArrayList<>();
        for (File f : files) {
            String name = CycliumApi.class.getPackageName() + "." + f.getName().replace(".class", "");
            try {
                Class<?> c = Class.forName(name, false, CycliumApi.class.getClassLoader());
                if (which.test(c)) {
                    resources.add(c);
                }
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException(e);
            }
        }
        return resources;
    }
}
