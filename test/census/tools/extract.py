"""Census extractor: TensorFlow names used by public input-pipeline code.

Usage: python extract.py OUT.json MIRROR_GITDIR...
Reads each mirror at HEAD (git grep for candidates), extracts names per file, keeps files
that touch TFRecord / tf.train.Example / tf.data, dedupes by normalised content.
"""
import ast, hashlib, json, re, subprocess, sys, collections

DIRS = json.load(open('tfdirs.json'))
DS_METHODS = set(DIRS['Dataset'])
TENSOR_M = set(DIRS['Tensor'])
SPARSE_M = set(DIRS['SparseTensor'])
RAGGED_M = set(DIRS['RaggedTensor'])
EXAMPLE_M = set(DIRS['Example']) | set(DIRS['ExampleFields'])
# Members counted even when the receiver's type is unknown: names that numpy, pandas,
# lists, dicts and str do not have, so a hit almost surely is the TF class's member.
DS_DISTINCT = {'prefetch', 'padded_batch', 'unbatch', 'interleave', 'flat_map',
               'as_numpy_iterator', 'cardinality', 'with_options', 'element_spec',
               'ragged_batch', 'group_by_window', 'bucket_by_sequence_length',
               'ignore_errors', 'rebatch', 'from_tensor_slices', 'from_generator',
               'from_tensors', 'list_files', 'sparse_batch', 'get_single_element',
               'choose_from_datasets', 'sample_from_datasets'}
TENSOR_DISTINCT = {'numpy', 'set_shape', 'get_shape'}
SPARSE_DISTINCT = {'dense_shape'}
RAGGED_DISTINCT = {'to_tensor', 'flat_values', 'row_splits', 'row_lengths', 'nested_row_splits',
                   'nested_row_lengths', 'value_rowids', 'merge_dims', 'bounding_shape',
                   'with_flat_values', 'with_values', 'ragged_rank', 'uniform_row_length'}
EXAMPLE_DISTINCT = {'SerializeToString', 'ParseFromString', 'FromString', 'int64_list',
                    'bytes_list', 'float_list', 'feature_lists', 'feature_list', 'HasField',
                    'WhichOneof', 'CopyFrom', 'MergeFrom', 'ListFields'}
# Dataset methods whose result is not a Dataset.
NOT_RETURNING_DS = {'as_numpy_iterator', 'cardinality', 'reduce', 'element_spec',
                    'get_single_element', 'save', 'options'}
DS_NAME_RE = re.compile(r'(^|_)(ds|dataset|datasets|data_set)(_|$)|_ds$|^ds|dataset$', re.I)
INPUT_MARK = re.compile(
    r'^(tf\.(compat\.v1\.)?(data\.|io\.(TFRecord|tf_record|parse|serialize|FixedLen|'
    r'VarLen|SparseFeature|RaggedFeature|decode_raw|decode_proto)|'
    r'train\.(Example|Feature|Features|BytesList|Int64List|FloatList|SequenceExample|'
    r'FeatureList|FeatureLists)|python_io\.|parse_|FixedLen|VarLen|'
    r'TFRecordReader|decode_raw)|Dataset\.|Example\.)')


def code_of(path, text):
    if path.endswith('.ipynb'):
        try:
            nb = json.loads(text)
        except Exception:
            return None
        cells = nb.get('cells') or sum((w.get('cells', []) for w in nb.get('worksheets', [])), [])
        out = []
        for c in cells:
            if c.get('cell_type') != 'code':
                continue
            src = c.get('source') or c.get('input') or ''
            if isinstance(src, list):
                src = ''.join(src)
            out.append(src)
        text = '\n'.join(out)
    lines = []
    for ln in text.split('\n'):
        s = ln.lstrip()
        if s.startswith(('%', '!', '?')) or s.endswith('?') and not s.startswith('#'):
            lines.append('')  # IPython magic / shell escape / help
        else:
            lines.append(ln)
    return '\n'.join(lines)


def chain_of(node):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return list(reversed(parts))
    return None


def canon(name):
    if name.startswith('tf.compat.v2.'):
        return 'tf.' + name[len('tf.compat.v2.'):]
    return name


class Extractor(ast.NodeVisitor):
    def __init__(self):
        self.alias = {}        # local name -> tf dotted name
        self.names = set()
        self.types = {}        # local name -> class
        self.parents = {}

    def module_alias(self, mod, asname):
        if mod == 'tensorflow' or mod.startswith('tensorflow.'):
            rest = mod[len('tensorflow'):]
            if rest.startswith(('.python', '.core', '.contrib')):
                if rest.startswith('.contrib'):
                    self.names.add('tf' + rest)
                return None
            return canon('tf' + rest)
        return None

    def visit_Import(self, node):
        for a in node.names:
            full = self.module_alias(a.name, a.asname)
            if full is None:
                continue
            if a.asname:
                self.alias[a.asname] = full
            elif a.name == 'tensorflow':
                self.alias['tensorflow'] = 'tf'

    def visit_ImportFrom(self, node):
        if not node.module or node.level:
            return
        base = self.module_alias(node.module, None)
        if base is None:
            return
        for a in node.names:
            if a.name == '*':
                continue
            full = canon(base + '.' + a.name)
            self.alias[a.asname or a.name] = full
            self.names.add(full)

    def resolve(self, chain):
        if chain and chain[0] in self.alias:
            return canon('.'.join([self.alias[chain[0]]] + chain[1:]))
        return None

    # --- types -------------------------------------------------------------------
    def type_of(self, e, depth=0):
        if depth > 40:
            return None
        if isinstance(e, ast.Name):
            t = self.types.get(e.id)
            if t:
                return t
            if DS_NAME_RE.search(e.id):
                return 'Dataset'
            return None
        if isinstance(e, ast.Call):
            f = e.func
            ch = chain_of(f)
            full = self.resolve(ch) if ch else None
            if full:
                return self.type_of_tf_call(full)
            if ch and ch[0] == 'tfds' and ch[-1] == 'load':
                return 'Dataset'
            if isinstance(f, ast.Attribute):
                rt = self.type_of(f.value, depth + 1)
                if rt == 'Dataset' and f.attr in DS_METHODS and f.attr not in NOT_RETURNING_DS:
                    return 'Dataset'
                if rt == 'Example' and f.attr == 'FromString':
                    return 'Example'
            return None
        if isinstance(e, ast.Attribute):
            ch = chain_of(e)
            full = self.resolve(ch) if ch else None
            if full and re.search(r'\.(Example|SequenceExample)$', full):
                return 'ExampleClass'
        return None

    @staticmethod
    def type_of_tf_call(full):
        last = full.rsplit('.', 1)[-1]
        if re.match(r'^tf\.(compat\.v1\.)?data\.', full):
            if last.endswith('Dataset') or '.Dataset.' in full or last in (
                    'make_csv_dataset', 'make_batched_features_dataset', 'sample_from_datasets',
                    'choose_from_datasets', 'make_tf_record_dataset'):
                return 'Dataset'
            return None
        if re.search(r'keras\.(utils|preprocessing)(\.\w+)?\.\w*dataset_from_', full):
            return 'Dataset'
        if re.search(r'\.(SparseTensor|sparse\.from_dense|sparse\.reorder|sparse\.reshape)$', full):
            return 'SparseTensor'
        if re.search(r'(ragged\.constant|RaggedTensor\.from_\w+)$', full):
            return 'RaggedTensor'
        if re.search(r'train\.(Example|SequenceExample)(\.FromString)?$', full):
            return 'Example'
        if re.match(r'^tf\.(compat\.v1\.)?(constant|convert_to_tensor|cast|reshape|stack|concat|'
                    r'io\.decode_\w+|image\.\w+|strings\.\w+|math\.\w+|reduce_\w+|squeeze|'
                    r'expand_dims|gather|zeros|ones|range|where|one_hot|transpose|tile|shape|'
                    r'random\.\w+)$', full):
            return 'Tensor'
        return None

    def assign_types(self, tree):
        for _ in range(3):
            for node in ast.walk(tree):
                if isinstance(node, ast.Assign):
                    t = self.type_of(node.value)
                    for tg in node.targets:
                        if isinstance(tg, ast.Name) and t:
                            self.types[tg.id] = t
                elif (isinstance(node, (ast.AnnAssign, ast.AugAssign))
                      and isinstance(node.target, ast.Name) and node.value is not None):
                    t = self.type_of(node.value)
                    if t:
                        self.types[node.target.id] = t

    # --- names -------------------------------------------------------------------
    def run(self, tree):
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                self.visit(node)
        self.assign_types(tree)
        for node in ast.walk(tree):
            for ch in ast.iter_child_nodes(node):
                self.parents[id(ch)] = node
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute):
                par = self.parents.get(id(node))
                if isinstance(par, ast.Attribute) and par.value is node:
                    continue  # not maximal
                self.attribute(node)

    def attribute(self, node):
        ch = chain_of(node)
        if ch:
            full = self.resolve(ch)
            if full:
                if full != 'tf':
                    self.add_tf(full)
                return
        # walk down the attribute chain: each link whose receiver is not a tf chain
        cur = node
        while isinstance(cur, ast.Attribute):
            self.member(cur.value, cur.attr)
            cur = cur.value
            if isinstance(cur, ast.Call):
                break

    def add_tf(self, full):
        self.names.add(full)
        # tf.data.Dataset.from_tensor_slices(...).map -> handled by member(); class attrs of
        # tf.train.Example (FromString) stay as chains.

    def member(self, recv, attr):
        t = self.type_of(recv)
        if t == 'ExampleClass':
            return
        if t == 'Dataset' and attr in DS_METHODS:
            self.names.add('Dataset.' + attr); return
        if t == 'Tensor' and attr in TENSOR_M:
            self.names.add('Tensor.' + attr); return
        if t == 'SparseTensor' and attr in SPARSE_M:
            self.names.add('SparseTensor.' + attr); return
        if t == 'RaggedTensor' and attr in RAGGED_M:
            self.names.add('RaggedTensor.' + attr); return
        if t == 'Example' and attr in EXAMPLE_M:
            self.names.add('Example.' + attr); return
        if isinstance(recv, ast.Name) and recv.id in ('np', 'numpy', 'pd', 'os', 'self', 'tfds'):
            return
        if attr in DS_DISTINCT:
            self.names.add('Dataset.' + attr)
        elif attr in TENSOR_DISTINCT:
            self.names.add('Tensor.' + attr)
        elif attr in RAGGED_DISTINCT:
            self.names.add('RaggedTensor.' + attr)
        elif attr in SPARSE_DISTINCT:
            self.names.add('SparseTensor.' + attr)
        elif attr in EXAMPLE_DISTINCT:
            self.names.add('Example.' + attr)


TF_RE = re.compile(r'\b([A-Za-z_]\w*)((?:\.[A-Za-z_]\w*)+)')


def regex_extract(code):
    """Fallback for code ast cannot parse (Python 2, broken notebooks)."""
    alias = {}
    for m in re.finditer(r'^\s*import\s+(tensorflow(?:\.[\w.]+)?)(?:\s+as\s+(\w+))?', code, re.M):
        mod, asn = m.group(1), m.group(2)
        if mod.startswith('tensorflow.python'):
            continue
        alias[asn or 'tensorflow'] = canon('tf' + mod[len('tensorflow'):])
    names = set()
    for m in TF_RE.finditer(code):
        head, rest = m.group(1), m.group(2)
        if head in alias:
            names.add(canon(alias[head] + rest))
        else:
            for a in rest.strip('.').split('.'):
                if a in DS_DISTINCT:
                    names.add('Dataset.' + a)
                elif a in EXAMPLE_DISTINCT:
                    names.add('Example.' + a)
                elif a in RAGGED_DISTINCT:
                    names.add('RaggedTensor.' + a)
    return names


def extract(path, text):
    code = code_of(path, text)
    if code is None:
        return None, None
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return regex_extract(code), 'regex'
    ex = Extractor()
    try:
        ex.run(tree)
    except RecursionError:
        return regex_extract(code), 'regex'
    return ex.names, 'ast'


def norm_hash(code):
    lines = [l.strip() for l in code.split('\n')]
    lines = [l for l in lines if l and not l.startswith('#')]
    return hashlib.sha1('\n'.join(lines).encode()).hexdigest()


GREP = (r'tf\.data|TFRecord|tf\.train\.Example|parse_single_example|parse_example|'
        r'FixedLenFeature|Dataset\.from_tensor|python_io|tensorflow\.data')


def main():
    out, mirrors = sys.argv[1], sys.argv[2:]
    files, seen = [], set()
    stats = collections.Counter()
    for gitdir in mirrors:
        repo = gitdir.split('/.mirror/')[1].split('/')[0].replace('+', '/', 1)
        commit = subprocess.check_output(['git', '-C', gitdir, 'rev-parse', 'HEAD'],
                                         text=True).strip()
        r = subprocess.run(['git', '-C', gitdir, 'grep', '-l', '-E', GREP, 'HEAD', '--',
                            '*.py', '*.ipynb'],
                           capture_output=True, text=True)
        for line in r.stdout.splitlines():
            path = line.split(':', 1)[1]
            blob = subprocess.run(['git', '-C', gitdir, 'show', 'HEAD:' + path], capture_output=True)
            text = blob.stdout.decode('utf-8', 'replace')
            code = code_of(path, text)
            if not code:
                continue
            h = norm_hash(code)
            if h in seen:
                stats['duplicate'] += 1
                continue
            names, how = extract(path, text)
            if not names or not any(INPUT_MARK.match(n) for n in names):
                stats['no input pipeline'] += 1
                continue
            seen.add(h)
            stats[how] += 1
            files.append({'repo': repo, 'path': path, 'commit': commit, 'how': how,
                          'names': sorted(names)})
    json.dump({'files': files, 'stats': stats}, open(out, 'w'))
    print(len(files), dict(stats), file=sys.stderr)


if __name__ == '__main__':
    main()
