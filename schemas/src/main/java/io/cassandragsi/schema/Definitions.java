package io.cassandragsi.schema;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads, validates and writes index definitions (docs/design.md section 2). Every rejection is a
 * {@link DefinitionException} naming the source, the index and the attribute.
 */
public final class Definitions {
    /** Cassandra 5.0's limit for keyspace names (SchemaConstants.NAME_LENGTH). */
    public static final int MAX_KEYSPACE_NAME = 48;
    /** Cassandra 5.0's limit for table names (SchemaConstants.TABLE_NAME_LENGTH). */
    public static final int MAX_TABLE_NAME = 222;
    /** Attribute names: kept well below Cassandra's limits so that generated names stay short. */
    public static final int MAX_ATTRIBUTE_NAME = 128;

    private static final Pattern NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_]*");
    private static final Set<String> TOP_LEVEL = Set.of("keyspace", "table", "versioned", "maintenance", "indexing", "attributes", "index", "secondaryIndexes");
    private static final Set<String> ELEMENT_KEYS = Set.of("type", "attribute", "order");
    private static final Set<String> BUCKET_KEYS = Set.of("type", "period");
    private static final Set<String> RESERVED_KEYSPACES = Set.of(
            "system", "system_schema", "system_auth", "system_distributed", "system_traces",
            "system_virtual_schema", "system_views", "system_cluster_metadata");

    private static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

    private Definitions() {}

    /** Reads and validates one definition file. */
    public static TableDef read(Path file) {
        String source = file.getFileName().toString();
        String json;
        try {
            json = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new DefinitionException(source, null, null, "cannot read file: " + e.getMessage());
        }
        return parse(json, source);
    }

    /** Parses and validates definition JSON; {@code source} names it in error messages. */
    public static TableDef parse(String json, String source) {
        JsonNode root;
        try {
            root = MAPPER.readTree(json);
        } catch (JsonProcessingException e) {
            throw new DefinitionException(source, null, null, "not valid JSON: " + e.getOriginalMessage()
                    + (e.getLocation() == null ? "" : " (line " + e.getLocation().getLineNr()
                            + ", column " + e.getLocation().getColumnNr() + ")"));
        }
        if (root == null || !root.isObject()) {
            throw new DefinitionException(source, null, null, "a definition must be a JSON object");
        }
        return new Reader(source, root).read();
    }

    /** The canonical JSON of a definition (the format of docs/design.md section 2). */
    public static String toJson(TableDef def) {
        ObjectNode root = MAPPER.createObjectNode();
        root.put("keyspace", def.keyspace());
        root.put("table", def.table());
        if (def.versionedFlag() != null) {
            root.put("versioned", def.versionedFlag());
        }
        if (def.maintenance() != Maintenance.SERVICE) {
            root.put("maintenance", def.maintenance().jsonName());
        }
        if (def.indexing() != Indexing.ATOMIC) {
            root.put("indexing", def.indexing().jsonName());
        }
        ObjectNode attrs = root.putObject("attributes");
        def.attributes().forEach((k, v) -> attrs.put(k, v.jsonName()));
        ArrayNode key = root.putArray("index");
        for (Column c : def.partitionKey()) {
            key.addObject().put("type", "hash").put("attribute", c.name());
        }
        for (Column c : def.clustering()) {
            key.addObject().put("type", "range").put("order", c.order().name().toLowerCase()).put("attribute", c.name());
        }
        ObjectNode sec = root.putObject("secondaryIndexes");
        for (Index index : def.indexes().values()) {
            ArrayNode parts = sec.putArray(index.name());
            for (Column c : index.hash()) {
                parts.addObject().put("type", "hash").put("attribute", c.name());
            }
            for (Column c : index.range()) {
                parts.addObject().put("type", "range").put("order", c.order().name().toLowerCase()).put("attribute", c.name());
            }
            for (Column c : index.proj()) {
                parts.addObject().put("type", "proj").put("attribute", c.name());
            }
            if (index.bucket() != null) {
                parts.addObject().put("type", "bucket").put("period", index.bucket().jsonName());
            }
        }
        try {
            return MAPPER.writeValueAsString(root);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static final class Reader {
        private final String source;
        private final JsonNode root;

        Reader(String source, JsonNode root) {
            this.source = source;
            this.root = root;
        }

        private DefinitionException error(String index, String attribute, String problem) {
            return new DefinitionException(source, index, attribute, problem);
        }

        TableDef read() {
            for (Iterator<String> it = root.fieldNames(); it.hasNext();) {
                String field = it.next();
                if (!TOP_LEVEL.contains(field)) {
                    throw error(null, null, "unknown field '" + field + "' (expected: keyspace, table, versioned, maintenance, indexing, attributes, index, secondaryIndexes)");
                }
            }
            String keyspace = name(root.get("keyspace"), "keyspace", MAX_KEYSPACE_NAME);
            if (RESERVED_KEYSPACES.contains(keyspace.toLowerCase())) {
                throw error(null, null, "keyspace '" + keyspace + "' is a Cassandra system keyspace");
            }
            String table = name(root.get("table"), "table", MAX_TABLE_NAME);
            if (!keyspace.equals(keyspace.toLowerCase()) || !table.equals(table.toLowerCase())) {
                throw error(null, null, "keyspace and table names must be lower case (got '" + keyspace + "." + table + "')");
            }
            Map<String, AttrType> attributes = attributes();

            JsonNode keyNode = root.get("index");
            if (keyNode == null || !keyNode.isArray() || keyNode.isEmpty()) {
                throw error(null, null, "'index' (the primary key) must be a non-empty array of {\"type\": \"hash\"|\"range\", \"attribute\": ...}");
            }
            List<Column> partition = new ArrayList<>();
            List<Column> clustering = new ArrayList<>();
            Set<String> seen = new HashSet<>();
            for (JsonNode element : keyNode) {
                Part part = part(element, null, attributes, false);
                if (!seen.add(part.column.name())) {
                    throw error(null, part.column.name(), "appears twice in the primary key");
                }
                if (!part.column.type().isScalar()) {
                    throw error(null, part.column.name(), "type " + part.column.type().jsonName() + " cannot be part of a key (key attributes must be scalar)");
                }
                if (part.kind.equals("hash")) {
                    if (!clustering.isEmpty()) {
                        throw error(null, part.column.name(), "hash attributes must come before range attributes in the primary key");
                    }
                    partition.add(part.column);
                } else {
                    clustering.add(part.column);
                }
            }
            if (partition.isEmpty()) {
                throw error(null, null, "the primary key needs at least one hash attribute");
            }
            Boolean versioned = null;
            JsonNode versionedNode = root.get("versioned");
            if (versionedNode != null && !versionedNode.isNull()) {
                if (!versionedNode.isBoolean()) {
                    throw error(null, null, "'versioned' must be true or false (or left out), not " + versionedNode);
                }
                versioned = versionedNode.asBoolean();
            }
            Maintenance maintenance = Maintenance.SERVICE;
            JsonNode maintenanceNode = root.get("maintenance");
            if (maintenanceNode != null && !maintenanceNode.isNull()) {
                maintenance = maintenanceNode.isTextual() ? Maintenance.fromJson(maintenanceNode.asText()) : null;
                if (maintenance == null) {
                    throw error(null, null, "'maintenance' must be \"service\" (the default: the repair service runs the sibling diffs) or"
                            + " \"node\" (the node that ran the trigger runs them), not " + maintenanceNode);
                }
            }
            Indexing indexing = Indexing.ATOMIC;
            JsonNode indexingNode = root.get("indexing");
            if (indexingNode != null && !indexingNode.isNull()) {
                indexing = indexingNode.isTextual() ? Indexing.fromJson(indexingNode.asText()) : null;
                if (indexing == null) {
                    throw error(null, null, "'indexing' must be \"atomic\" (the default: the index entries ride in the write's logged"
                            + " batch) or \"eventual\" (the in-node maintainer writes them after the write), not " + indexingNode);
                }
            }
            if (indexing == Indexing.EVENTUAL) {
                if (maintenanceNode != null && !maintenanceNode.isNull() && maintenance == Maintenance.SERVICE) {
                    throw error(null, null, "\"indexing\": \"eventual\" and \"maintenance\": \"service\" do not go together: eventual"
                            + " indexing is done by the in-node maintainer, so it implies \"maintenance\": \"node\" (leave \"maintenance\""
                            + " out, or set it to \"node\")");
                }
                maintenance = Maintenance.NODE;
            }
            TableDef def = new TableDef(keyspace, table, attributes, partition, clustering, versioned, maintenance, indexing);
            if (Boolean.TRUE.equals(versioned) && !def.endsInTimeuuid()) {
                Column last = def.primaryKey().get(def.primaryKey().size() - 1);
                throw error(null, last.name(), "\"versioned\": true needs the last primary-key attribute to be a timeuuid range attribute"
                        + " (the version id); '" + last.name() + "' is a " + (clustering.isEmpty() ? "hash" : "range") + " attribute of type "
                        + last.type().jsonName() + ". Leave \"versioned\" out to index the table as unversioned");
            }
            indexes(def);
            return def;
        }

        private String name(JsonNode node, String what, int maxLength) {
            if (node == null || !node.isTextual() || node.asText().isEmpty()) {
                throw error(null, null, "'" + what + "' is required and must be a non-empty string");
            }
            String name = node.asText();
            if (!NAME.matcher(name).matches()) {
                throw error(null, null, what + " name '" + name + "' must start with a letter and contain only letters, digits and '_'");
            }
            if (name.length() > maxLength) {
                throw error(null, null, what + " name '" + name + "' is too long for Cassandra (" + name.length() + " characters, at most " + maxLength + ")");
            }
            return name;
        }

        private Map<String, AttrType> attributes() {
            JsonNode node = root.get("attributes");
            if (node == null || !node.isObject() || node.isEmpty()) {
                throw error(null, null, "'attributes' is required: an object of attribute name to type");
            }
            Map<String, AttrType> attributes = new LinkedHashMap<>();
            Set<String> lowerNames = new HashSet<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext();) {
                Map.Entry<String, JsonNode> e = it.next();
                String name = e.getKey();
                if (!NAME.matcher(name).matches()) {
                    throw error(null, name, "attribute names must start with a letter and contain only letters, digits and '_'");
                }
                if (name.length() > MAX_ATTRIBUTE_NAME) {
                    throw error(null, name, "name too long (" + name.length() + " characters, at most " + MAX_ATTRIBUTE_NAME + ")");
                }
                if (!lowerNames.add(name.toLowerCase())) {
                    throw error(null, name, "differs from another attribute only in case");
                }
                if (!e.getValue().isTextual()) {
                    throw error(null, name, "the type must be a string, one of: " + AttrType.supportedNames());
                }
                AttrType type = AttrType.fromJsonName(e.getValue().asText());
                if (type == null) {
                    throw error(null, name, "unsupported type '" + e.getValue().asText() + "' (supported: " + AttrType.supportedNames() + ")");
                }
                attributes.put(name, type);
            }
            return attributes;
        }

        private record Part(String kind, Column column) {}

        private Part part(JsonNode element, String index, Map<String, AttrType> attributes, boolean allowProj) {
            if (element == null || !element.isObject()) {
                throw error(index, null, "each element must be an object like {\"type\": \"hash\", \"attribute\": \"name\"}");
            }
            for (Iterator<String> it = element.fieldNames(); it.hasNext();) {
                String field = it.next();
                if (!ELEMENT_KEYS.contains(field)) {
                    throw error(index, element.path("attribute").asText(null), "unknown field '" + field + "' (expected: type, attribute, order)");
                }
            }
            JsonNode attrNode = element.get("attribute");
            if (attrNode == null || !attrNode.isTextual()) {
                throw error(index, null, "element without an 'attribute' string: " + element);
            }
            String attribute = attrNode.asText();
            String kind = element.path("type").asText("");
            boolean kindOk = kind.equals("hash") || kind.equals("range") || (allowProj && kind.equals("proj"));
            if (!kindOk) {
                throw error(index, attribute, "unknown type '" + kind + "' (expected: " + (allowProj ? "hash, range, proj or bucket" : "hash or range") + ")");
            }
            AttrType type = attributes.get(attribute);
            if (type == null) {
                throw error(index, attribute, "unknown attribute (attributes: " + String.join(", ", attributes.keySet()) + ")");
            }
            Order order = Order.ASC;
            JsonNode orderNode = element.get("order");
            if (orderNode != null) {
                if (!kind.equals("range")) {
                    throw error(index, attribute, "'order' applies to range attributes only");
                }
                String o = orderNode.asText("");
                if (o.equalsIgnoreCase("asc")) {
                    order = Order.ASC;
                } else if (o.equalsIgnoreCase("desc")) {
                    order = Order.DESC;
                } else {
                    throw error(index, attribute, "order must be 'asc' or 'desc', not '" + orderNode.asText() + "'");
                }
            }
            return new Part(kind, new Column(attribute, type, order));
        }

        /**
         * A {@code {"type": "bucket", "period": "day"|"month"|"year"}} element (docs/design.md
         * section 2): only on a versioned table, whose base keeps the history that a bucket is
         * sealed from (section 9.4).
         */
        private BucketPeriod bucket(TableDef def, String index, JsonNode element) {
            for (Iterator<String> it = element.fieldNames(); it.hasNext();) {
                String field = it.next();
                if (!BUCKET_KEYS.contains(field)) {
                    throw error(index, null, "unknown field '" + field + "' in a bucket element (expected: type, period)");
                }
            }
            JsonNode periodNode = element.get("period");
            BucketPeriod period = periodNode != null && periodNode.isTextual() ? BucketPeriod.fromJson(periodNode.asText()) : null;
            if (period == null) {
                throw error(index, null, "a bucket's 'period' must be \"day\", \"month\" or \"year\", not " + (periodNode == null ? "missing" : periodNode));
            }
            if (!def.versioned()) {
                throw error(index, null, "a bucket needs a versioned table (the last primary-key attribute a timeuuid): "
                        + def.qualifiedName() + " is unversioned, its base keeps no history to fill a bucket from");
            }
            String tableName = period.tableName(def.table(), index);
            if (tableName.length() > MAX_TABLE_NAME) {
                throw error(index, null, "bucket table name '" + tableName + "' is too long for Cassandra (" + tableName.length()
                        + " characters, at most " + MAX_TABLE_NAME + ")");
            }
            return period;
        }

        private void indexes(TableDef def) {
            JsonNode node = root.get("secondaryIndexes");
            if (node == null || node.isNull()) {
                return;
            }
            if (!node.isObject()) {
                throw error(null, null, "'secondaryIndexes' must be an object of index name to an array of elements");
            }
            Map<String, String> keyShapes = new LinkedHashMap<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext();) {
                Map.Entry<String, JsonNode> e = it.next();
                String name = e.getKey();
                if (!NAME.matcher(name).matches()) {
                    throw error(name, null, "index names must start with a letter and contain only letters, digits and '_'");
                }
                if (!name.equals(name.toLowerCase())) {
                    throw error(name, null, "index names must be lower case (they become part of a table name)");
                }
                String tableName = Index.tableName(def.table(), name);
                if (tableName.length() > MAX_TABLE_NAME) {
                    throw error(name, null, "index table name '" + tableName + "' is too long for Cassandra ("
                            + tableName.length() + " characters, at most " + MAX_TABLE_NAME + ")");
                }
                if (!e.getValue().isArray() || e.getValue().isEmpty()) {
                    throw error(name, null, "must be a non-empty array of {\"type\": \"hash\"|\"range\"|\"proj\", \"attribute\": ...}"
                            + " (and at most one {\"type\": \"bucket\", \"period\": \"day\"|\"month\"|\"year\"})");
                }
                List<Column> hash = new ArrayList<>();
                List<Column> range = new ArrayList<>();
                List<Column> proj = new ArrayList<>();
                Set<String> seen = new HashSet<>();
                BucketPeriod bucket = null;
                for (JsonNode element : e.getValue()) {
                    if (element != null && element.isObject() && "bucket".equals(element.path("type").asText(null))) {
                        if (bucket != null) {
                            throw error(name, null, "declares two buckets; an index has at most one {\"type\": \"bucket\", \"period\": ...}");
                        }
                        bucket = bucket(def, name, element);
                        continue;
                    }
                    Part part = part(element, name, def.attributes(), true);
                    String attr = part.column.name();
                    if (!seen.add(attr)) {
                        throw error(name, attr, "appears twice in the index");
                    }
                    switch (part.kind) {
                        case "hash" -> {
                            if (!range.isEmpty()) {
                                throw error(name, attr, "hash attributes must come before range attributes");
                            }
                            hash.add(part.column);
                        }
                        case "range" -> range.add(part.column);
                        default -> proj.add(part.column);
                    }
                    if (!part.kind.equals("proj") && !part.column.type().isScalar()) {
                        throw error(name, attr, "type " + part.column.type().jsonName() + " cannot be part of an index key (key attributes must be scalar); project it instead");
                    }
                    if (part.kind.equals("proj") && def.isPrimaryKey(attr)) {
                        throw error(name, attr, "is part of the base primary key, which every index entry carries already; remove the proj element");
                    }
                }
                if (hash.isEmpty() && range.isEmpty()) {
                    throw error(name, null, "needs at least one hash or range attribute");
                }
                if (!def.versioned() && hash.stream().allMatch(c -> def.isPrimaryKey(c.name()))
                        && range.stream().allMatch(c -> def.isPrimaryKey(c.name()))) {
                    throw error(name, null, "on an unversioned table an index needs at least one hash or range attribute that is not"
                            + " part of the primary key (an entry exists while its key attributes are live)");
                }
                String shape = hash.toString() + range;
                for (Map.Entry<String, String> other : keyShapes.entrySet()) {
                    if (other.getValue().equals(shape)) {
                        throw error(name, null, "duplicate index: same key as index '" + other.getKey() + "' (merge their projections into one index)");
                    }
                }
                keyShapes.put(name, shape);
                Column tid = def.tid();
                if (bucket != null && tid != null && (hash.stream().anyMatch(c -> c.name().equals(tid.name()))
                        || range.stream().anyMatch(c -> c.name().equals(tid.name())))) {
                    throw error(name, tid.name(), "a bucket needs an index that keeps one entry per row; this one's key holds the tid, so it"
                            + " keeps one entry per version, which a read in the past finds by its tid already: remove the bucket element");
                }
                def.addIndex(name, hash, range, proj, bucket);
            }
        }
    }
}
