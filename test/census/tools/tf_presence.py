import json, tensorflow as tf
d = json.load(open('census.json'))
t = tf.constant(1); sp = tf.sparse.SparseTensor([[0]], [1], [1]); rg = tf.ragged.constant([[1]])
ex = tf.train.Example()
ROOTS = {'Dataset': tf.data.Dataset, 'Tensor': t, 'SparseTensor': sp, 'RaggedTensor': rg, 'Example': ex}
def present(name):
    head, *rest = name.split('.')
    if head == 'tf':
        obj = tf
    elif head in ROOTS:
        obj = ROOTS[head]
        if head == 'Example' and rest and rest[0] in ('features','feature','int64_list','bytes_list','float_list','feature_lists','feature_list','context','value','kind'):
            return True
    else:
        return False
    for p in rest:
        try:
            obj = getattr(obj, p)
        except Exception:
            return False
    return True
for n in d['names']:
    n['in_tf_2_21'] = present(n['name'])
json.dump(d, open('census.json', 'w'), indent=0, separators=(',', ':'))
print(sum(n['in_tf_2_21'] for n in d['names']), len(d['names']))
