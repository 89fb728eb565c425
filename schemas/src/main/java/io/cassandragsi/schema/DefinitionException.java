package io.cassandragsi.schema;

/**
 * A definition that cannot be used. The message names the source (file), and where it applies the
 * index and the attribute, so that a user can find the mistake without reading code.
 */
public class DefinitionException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String source;
    private final String index;
    private final String attribute;

    public DefinitionException(String source, String index, String attribute, String problem) {
        super(format(source, index, attribute, problem));
        this.source = source;
        this.index = index;
        this.attribute = attribute;
    }

    private static String format(String source, String index, String attribute, String problem) {
        StringBuilder sb = new StringBuilder();
        sb.append(source == null ? "<definition>" : source).append(": ");
        if (index != null) {
            sb.append("index '").append(index).append("': ");
        }
        if (attribute != null) {
            sb.append("attribute '").append(attribute).append("': ");
        }
        return sb.append(problem).toString();
    }

    public String source() {
        return source;
    }

    public String index() {
        return index;
    }

    public String attribute() {
        return attribute;
    }
}
