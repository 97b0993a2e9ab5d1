; benchmark generated from rust API
(set-info :status unknown)
(declare-fun c1 () Int)
(declare-fun c3 () Int)
(declare-fun c9 () Int)
(declare-fun c11 () Int)
(declare-fun v2 () Bool)
(declare-fun v3 () Bool)
(declare-fun v5 () Bool)
(declare-fun v6 () Bool)
(declare-fun v8 () Bool)
(declare-fun v9 () Bool)
(declare-fun v11 () Bool)
(declare-fun v12 () Bool)
(declare-fun v16 () Bool)
(declare-fun v15 () Bool)
(declare-fun v14 () Bool)
(declare-fun v13 () Bool)
(declare-fun v17 () Bool)
(declare-fun v18 () Bool)
(declare-fun v19 () Bool)
(declare-fun v20 () Bool)
(declare-fun v21 () Bool)
(declare-fun v22 () Bool)
(declare-fun v23 () Bool)
(declare-fun v24 () Bool)
(assert
 (> c1 10))
(assert
 (< c1 65))
(assert
 (> c3 20))
(assert
 (< c3 65))
(assert
 (> c9 50))
(assert
 (< c9 65))
(assert
 (< c1 c9))
(assert
 (> c11 60))
(assert
 (< c11 65))
(assert
 (< c3 c11))
(assert
 (let (($x31 (< c1 35)))
 (let (($x107 (not v2)))
 (or $x107 $x31))))
(assert
 (let (($x31 (< c1 35)))
 (let (($x115 (not $x31)))
 (let (($x114 (not v3)))
 (or $x114 $x115)))))
(assert
 (let (($x33 (< c3 30)))
 (let (($x118 (not v5)))
 (or $x118 $x33))))
(assert
 (let (($x33 (< c3 30)))
 (let (($x126 (not $x33)))
 (let (($x125 (not v6)))
 (or $x125 $x126)))))
(assert
 (let (($x35 (< c9 55)))
 (let (($x129 (not v8)))
 (or $x129 $x35))))
(assert
 (let (($x35 (< c9 55)))
 (let (($x137 (not $x35)))
 (let (($x136 (not v9)))
 (or $x136 $x137)))))
(assert
 (let (($x36 (< c9 c11)))
 (let (($x140 (not v11)))
 (or $x140 $x36))))
(assert
 (let (($x36 (< c9 c11)))
 (let (($x149 (not $x36)))
 (let (($x148 (not v12)))
 (or $x148 $x149)))))
(assert
 (or v13 v14 v15 v16))
(assert
 (let (($x153 (not v17)))
 (or $x153 v15)))
(assert
 (let (($x156 (not v18)))
 (or $x156 v16)))
(assert
 (let (($x156 (not v18)))
 (or $x156 v2)))
(assert
 (let (($x161 (not v19)))
 (or $x161 v15)))
(assert
 (let (($x161 (not v19)))
 (or $x161 v5)))
(assert
 (let (($x166 (not v20)))
 (or $x166 v16)))
(assert
 (let (($x169 (not v21)))
 (or $x169 v14)))
(assert
 (let (($x169 (not v21)))
 (or $x169 v6)))
(assert
 (let (($x174 (not v22)))
 (or $x174 v16)))
(assert
 (let (($x177 (not v23)))
 (or $x177 v13)))
(assert
 (let (($x177 (not v23)))
 (or $x177 v3)))
(assert
 (let (($x182 (not v24)))
 (or $x182 v15)))
(assert
 (let (($x182 (not v24)))
 (or $x182 v9 v12)))
(assert
 (let (($x187 (not v13)))
 (or $x187 v17 v18)))
(assert
 (let (($x190 (not v14)))
 (or $x190 v19 v20)))
(assert
 (let (($x193 (not v15)))
 (or $x193 v21 v22)))
(assert
 (let (($x196 (not v16)))
 (or $x196 v23 v24)))
(check-sat)
