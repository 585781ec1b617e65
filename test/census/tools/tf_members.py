import json, numpy as np, tensorflow as tf
out = {}
def pub(o): return sorted(n for n in dir(o) if not n.startswith('_'))
out['Dataset'] = pub(tf.data.Dataset)
out['Tensor'] = pub(tf.constant(1))
out['SparseTensor'] = pub(tf.sparse.SparseTensor([[0]],[1],[1]))
out['RaggedTensor'] = pub(tf.ragged.constant([[1]]))
ex = tf.train.Example()
out['Example'] = pub(ex)
out['ExampleFields'] = ['features','feature','int64_list','bytes_list','float_list','feature_lists','feature_list','context','value','kind']
out['FixedLenFeature'] = pub(tf.io.FixedLenFeature([], tf.int64))
out['VarLenFeature'] = pub(tf.io.VarLenFeature(tf.int64))
out['numpy'] = pub(np.zeros(1))
json.dump(out, open('tfdirs.json','w'), indent=0)
print({k: len(v) for k,v in out.items()})
